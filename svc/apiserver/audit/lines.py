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

_STAGES = {
    stage: b',"stage":' + orjson.dumps(stage) + b',"requestURI":'
    for stage in ("RequestReceived", "ResponseStarted", "ResponseComplete", "Panic")
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
    try:
        return _json_line(item)
    except TypeError:  # orjson refuses lone surrogates
        return orjson.dumps(_valid_text(materialize(item)), option=_OPTIONS)


def _json_line(item: AuditItem) -> bytes:
    if not isinstance(item, StagedEvent):
        return orjson.dumps(item, option=_OPTIONS)
    status = item.status
    if item.later is not None or (status is not None and status[1] is not None):
        return orjson.dumps(item.build(), option=_OPTIONS)
    pending = item.pending
    received = pending.received_stamp()
    stamp = received if item.stamp == pending.received else timestamp(item.stamp).encode()
    shared = pending.line_parts
    if shared is None:
        shared = pending.line_parts = (
            _HEADS[pending.level] + orjson.dumps(pending.audit_id),
            orjson.dumps(pending.uri) + _shape(pending),
        )
    parts = [shared[0], _STAGES[item.stage], shared[1]]
    if status is not None:
        parts.append(_status(status[0]))
    parts += (_RECEIVED, received, _STAGE_STAMP, stamp)
    if item.annotations:
        parts += (_ANNOTATIONS, orjson.dumps(item.annotations), b"}\n")
    else:
        parts.append(_END)
    return b"".join(parts)
