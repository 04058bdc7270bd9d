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
    timestamp,
    user_info,
)
from svc.apiserver.audit.policy import Level

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

_shapes: dict[tuple[Any, ...], bytes] = {}
_statuses: dict[int, bytes] = {}


def _status(code: int) -> bytes:
    fragment = _statuses.get(code)
    if fragment is None:
        fragment = _statuses[code] = b',"responseStatus":{"metadata":{},"code":' + str(code).encode() + b"}"
    return fragment


def _encode_shape(pending: PendingEvent) -> bytes:
    """From the verb through the objectRef: what the requests of one shape share."""
    user = user_info(pending.user) if pending.user is not None else {}
    fields: dict[str, Any] = {"verb": pending.verb, "user": user}
    fields["sourceIPs"] = source_ips(pending.forwarded_for, pending.real_ip, pending.remote)
    if pending.user_agent:
        fields["userAgent"] = pending.user_agent
    ref = object_ref(pending.ref)
    if ref is not None:
        fields["objectRef"] = ref
    return b"," + orjson.dumps(fields)[1:-1]


def _shape(pending: PendingEvent) -> bytes:
    user = pending.user
    if user is not None and user.extra:  # unhashable, and rare: not worth a key of its own
        return _encode_shape(pending)
    key = (
        pending.verb,
        (user.name, user.uid, user.groups) if user is not None else None,
        pending.forwarded_for,
        pending.real_ip,
        pending.remote,
        pending.user_agent,
        pending.ref,
    )
    fragment = _shapes.get(key)
    if fragment is None:
        if len(_shapes) >= _CACHED_SHAPES:
            _shapes.clear()
        fragment = _shapes[key] = _encode_shape(pending)
    return fragment


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
        stamp = None if item.stamp == pending.received else item.stamp
        line = quick_line(pending, item.stage, stamp, item.status, item.later, item.annotations)
        if line is not None:
            return line
    return _whole_line(item)


def quick_line(
    pending: PendingEvent,
    stage: str,
    stamp: float | None,
    status: tuple[int, dict[str, Any] | None] | None,
    later: dict[str, Any] | None,
    annotations: dict[str, str] | None,
) -> bytes | None:
    """The line of the event at `stage` from fragments: the request's (encoded by its first stage),
    the stage's and the status code's; `stamp` None for the time the request came. None when the
    answer added to the event (`later`, a Status) or for text orjson refuses (lone surrogates): the
    built Event's way then."""
    if later is not None or (status is not None and status[1] is not None):
        return None
    parts = pending.line_parts
    try:
        if parts is None:
            received = timestamp(pending.received).encode()
            parts = pending.line_parts = (
                _HEADS[pending.level] + orjson.dumps(pending.audit_id),
                orjson.dumps(pending.uri) + _shape(pending),
                _RECEIVED + received + _STAGE_STAMP,
                received,
            )
        end = _ANNOTATIONS + orjson.dumps(annotations) + b"}\n" if annotations else _END
    except TypeError:
        return None
    head, middle, received_tail, received = parts
    stamped = received if stamp is None else timestamp(stamp).encode()
    if status is None:
        return b"".join((head, _STAGES[stage], middle, received_tail, stamped, end))
    return b"".join((head, _STAGES[stage], middle, _status(status[0]), received_tail, stamped, end))


def _whole_line(item: AuditItem) -> bytes:
    """The line of the built Event (a stage the answer added to, a dict already built)."""
    event = materialize(item)
    try:
        return orjson.dumps(event, option=_OPTIONS)
    except TypeError:  # orjson refuses lone surrogates
        return orjson.dumps(_valid_text(event), option=_OPTIONS)
