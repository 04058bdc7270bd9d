"""JSON lines of audit events, encoded on the request path from fragments cached per request shape.

The requests of one client share most of their event: the user, the source IPs, the user agent, the
verb and the objectRef. Those are encoded once per shape; an event is then a join of a few byte
strings (its Audit-ID, stage, URI, status, stamps and annotations), far cheaper than building the
Event object and encoding it whole. The bytes are exactly `orjson.dumps(staged.build())` plus a
newline: the fields, their order and their escaping are the same. A stage whose answer added fields
(an impersonated user, a completed objectRef, the objects, a Status) takes the whole-object way,
as does a dict already built.

Encoding where the event happens, instead of in the log writer's thread, keeps the raw inputs from
living on while the writer waits, and leaves that thread nothing to do under the interpreter lock
but hand bytes to the kernel: a second thread competing for the lock with a saturated event loop
costs the process far more than its own share of CPU.
"""

from __future__ import annotations

from typing import Any

import orjson

from svc.apiserver.audit.event import (
    AuditItem,
    PendingEvent,
    StagedEvent,
    materialize,
    object_ref,
    source_ips,
    stamp,
    stamps,
    user_info,
)
from svc.apiserver.audit.policy import Level
from svc.registry.admission import UserInfo

_CACHED_SHAPES = 4096
"""Shapes kept before the cache starts over (clients, users and objects seen recently)."""

_OPTIONS = orjson.OPT_APPEND_NEWLINE
_HEADS = {
    level: b'{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":' + orjson.dumps(level.wire) + b',"auditID":'
    for level in Level
}
_RECEIVED = b',"requestReceivedTimestamp":"'
_STAGE_STAMP = b'","stageTimestamp":"'
_ANNOTATIONS = b'","annotations":'
_END = b'"}\n'
RECEIVED = "RequestReceived"

_STAGES = {
    stage: b',"stage":' + orjson.dumps(stage) + b',"requestURI":'
    for stage in (RECEIVED, "ResponseStarted", "ResponseComplete", "Panic")
}

Held = tuple[bytes, bytes, float]
"""What every line of a request's events holds (`hold`): the head through the Audit-ID, the URI
through the objectRef, and the time the request came. The filter hands it to the log as the
request's RequestReceived, encoded when written: with its ResponseComplete, in one join, when the
request completes in the loop turn it came in (`received_and_completed`)."""

_RECEIVED_STAGE = _STAGES[RECEIVED]
_COMPLETE_STAGE = _STAGES["ResponseComplete"]


_shapes: dict[tuple[Any, ...], bytes] = {}
_statuses: dict[int, bytes] = {}


def _status(code: int) -> bytes:
    fragment = _statuses.get(code)
    if fragment is None:
        fragment = _statuses[code] = b',"responseStatus":{"metadata":{},"code":' + str(code).encode() + b"}"
    return fragment


def _encode_fragment(
    verb: str,
    user: UserInfo | None,
    forwarded_for: str,
    real_ip: str,
    remote: str,
    user_agent: str,
    ref: tuple[str, ...] | None,
) -> bytes:
    fields: dict[str, Any] = {"verb": verb, "user": user_info(user) if user is not None else {}}
    fields["sourceIPs"] = source_ips(forwarded_for, real_ip, remote)
    if user_agent:
        fields["userAgent"] = user_agent
    if (path_ref := object_ref(ref)) is not None:
        fields["objectRef"] = path_ref
    return b"," + orjson.dumps(fields)[1:-1]


def hold(
    level: Level,
    audit_id: str,
    uri: str,
    received: float,
    verb: str,
    user: UserInfo | None,
    forwarded_for: str,
    real_ip: str,
    remote: str,
    user_agent: str,
    ref: tuple[str, ...] | None,
) -> Held | None:
    """What every line of the request's events holds, encoded once: the head through the Audit-ID,
    the URI and the shape's fragment (the verb through the objectRef, encoded once per shape), and
    the time it came. None for text orjson refuses (lone surrogates): the built Event's way then."""
    try:
        if user is not None and user.extra:  # unhashable, and rare: not worth a key of its own
            fragment = _encode_fragment(verb, user, forwarded_for, real_ip, remote, user_agent, ref)
        else:
            user_key = (user.name, user.uid, user.groups) if user is not None else None
            key = (verb, user_key, forwarded_for, real_ip, remote, user_agent, ref)
            cached = _shapes.get(key)
            if cached is None:
                if len(_shapes) >= _CACHED_SHAPES:
                    _shapes.clear()
                cached = _shapes[key] = _encode_fragment(verb, user, forwarded_for, real_ip, remote, user_agent, ref)
            fragment = cached
        return (_HEADS[level] + orjson.dumps(audit_id), orjson.dumps(uri) + fragment, received)
    except TypeError:
        return None


def held_event(pending: PendingEvent) -> Held | None:
    """`hold` for a request's PendingEvent, kept on it for its later stages."""
    held = pending.line_parts
    if held is None:
        held = pending.line_parts = hold(
            pending.level,
            pending.audit_id,
            pending.uri,
            pending.received,
            pending.verb,
            pending.user,
            pending.forwarded_for,
            pending.real_ip,
            pending.remote,
            pending.user_agent,
            pending.ref,
        )
    return held


def _valid_text(value: Any) -> Any:
    """The value with text that is not UTF-8 (undecodable header bytes, kept as lone surrogates)
    replaced by U+FFFD, as Go's encoder writes it."""
    if isinstance(value, str):
        try:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_valid_text(key): _valid_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_valid_text(item) for item in value]
    return value


def json_line(item: AuditItem) -> bytes:
    """The event as one JSON line (newline included), the same bytes as encoding the built Event."""
    if isinstance(item, StagedEvent):
        pending = item.pending
        stage_stamp = None if item.stamp == pending.received else item.stamp
        line = quick_line(pending, item.stage, stage_stamp, item.status, item.later, item.annotations)
        if line is not None:
            return line
    return _whole_line(item)


def quick_line(
    pending: PendingEvent,
    stage: str,
    stage_stamp: float | None,
    status: tuple[int, dict[str, Any] | None] | None,
    later: dict[str, Any] | None,
    annotations: dict[str, str] | None,
) -> bytes | None:
    """The line of the event at `stage` from fragments: the request's (`hold`, by its first stage),
    the stage's and the status code's; `stage_stamp` None for the time the request came. None when the
    answer added to the event (`later`, a Status) or for text orjson refuses (lone surrogates): the
    built Event's way then."""
    if later is not None or (status is not None and status[1] is not None):
        return None
    if (held := held_event(pending)) is None:
        return None
    try:
        end = _ANNOTATIONS + orjson.dumps(annotations) + b"}\n" if annotations else _END
    except TypeError:
        return None
    head, middle, received = held
    got = stamp(received)
    stamped = got if stage_stamp is None else stamp(stage_stamp)
    code = b"" if status is None else _statuses.get(status[0]) or _status(status[0])
    return b"".join((head, _STAGES[stage], middle, code, _RECEIVED, got, _STAGE_STAMP, stamped, end))


def received_line(held: Held) -> bytes:
    head, middle, received = held
    got = stamp(received)
    return b"".join((head, _RECEIVED_STAGE, middle, _RECEIVED, got, _STAGE_STAMP, got, _END))


def received_and_completed(
    held: Held, received_too: bool, code: int, completed: float, annotations: dict[str, str]
) -> bytes | None:
    """The ResponseComplete line of a request the answer added nothing to but its code, after its
    RequestReceived line when `received_too`; None for annotations orjson refuses."""
    try:
        end = _ANNOTATIONS + orjson.dumps(annotations) + b"}\n" if annotations else _END
    except TypeError:
        return None
    head, middle, received = held
    got, done = stamps(received, completed)
    status = _statuses.get(code) or _status(code)
    if not received_too:
        return b"".join((head, _COMPLETE_STAGE, middle, status, _RECEIVED, got, _STAGE_STAMP, done, end))
    return b"".join(
        (
            head, _RECEIVED_STAGE, middle, _RECEIVED, got, _STAGE_STAMP, got, _END,
            head, _COMPLETE_STAGE, middle, status, _RECEIVED, got, _STAGE_STAMP, done, end,
        )
    )  # fmt: skip


def _whole_line(item: AuditItem) -> bytes:
    """The line of the built Event (a stage the answer added to, a dict already built)."""
    event = materialize(item)
    try:
        return orjson.dumps(event, option=_OPTIONS)
    except TypeError:  # orjson refuses lone surrogates
        return orjson.dumps(_valid_text(event), option=_OPTIONS)
