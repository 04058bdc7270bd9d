"""Building `audit.k8s.io/v1` Event objects from a request (pure data, no I/O): the request path keeps
the raw inputs, the backends build the objects."""

from __future__ import annotations

import copy
import json
import time
from typing import Any, NamedTuple

from aiohttp import web
from multidict import istr

from svc.apiserver.audit.policy import Level
from svc.apiserver.request_info import RequestInfo
from svc.machinery import wallclock
from svc.registry.admission import UserInfo

_second: tuple[float, bytes] = (0.0, b"1970-01-01T00:00:00.")
"""The last whole second (as a float: the subtraction stays in floats) formatted through its dot:
every event of that second reuses it."""
_MILLIS = [b"%03d" % number for number in range(1000)]
_MICROS = [b"%03dZ" % number for number in range(1000)]
"""The fraction's digits by thousands: two lookups format the microseconds cheaper than a format spec."""


def stamp(seconds: float) -> bytes:
    """Upstream's MicroTime as JSON text holds it: RFC 3339 with microseconds, in UTC, of `seconds`
    since the epoch."""
    global _second
    whole, prefix = _second  # read once: the batch worker thread and the event loop both stamp
    micros = round((seconds - whole) * 1_000_000)  # exact difference within the second: one rounding
    if not 0 <= micros < 1_000_000:
        whole = int(seconds)
        micros = round((seconds - whole) * 1_000_000)
        if micros == 1_000_000:
            whole, micros = whole + 1, 0
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(whole)).encode()
        _second = (float(whole), prefix)
    return prefix + _MILLIS[micros // 1000] + _MICROS[micros % 1000]


def stamps(first: float, then: float) -> tuple[bytes, bytes]:
    """`stamp` of two moments, with one call for the usual case of both in the last second stamped
    (a request's RequestReceived and ResponseComplete)."""
    whole, prefix = _second
    early, late = round((first - whole) * 1_000_000), round((then - whole) * 1_000_000)
    if 0 <= early < 1_000_000 and 0 <= late < 1_000_000:
        millis = _MILLIS
        micros = _MICROS
        return (
            prefix + millis[early // 1000] + micros[early % 1000],
            prefix + millis[late // 1000] + micros[late % 1000],
        )
    return stamp(first), stamp(then)


def timestamp(seconds: float) -> str:
    """`stamp` as text, for the built Event."""
    return stamp(seconds).decode()


def user_info(user: UserInfo) -> dict[str, Any]:
    info: dict[str, Any] = {"username": user.name}
    if user.uid:
        info["uid"] = user.uid
    if user.groups:
        info["groups"] = list(user.groups)
    if user.extra:
        info["extra"] = {key: list(values) for key, values in user.extra.items()}
    return info


def source_ips(forwarded_for: str, real_ip: str, remote: str) -> list[str]:
    """X-Forwarded-For, then X-Real-Ip, then the peer, without repeats (upstream's SourceIPs)."""
    ips = [ip.strip() for ip in forwarded_for.split(",") if ip.strip()]
    for ip in (real_ip.strip(), remote):
        if ip and ip not in ips:
            ips.append(ip)
    return ips


FORWARDED_FOR, REAL_IP, USER_AGENT = istr("X-Forwarded-For"), istr("X-Real-Ip"), istr("User-Agent")
"""The headers an event reads, as multidict's case-insensitive keys: folded once, not per lookup."""


def path_ref(info: RequestInfo) -> tuple[str, ...] | None:
    """The objectRef's parts the request's path names (`object_ref` makes the object)."""
    if not info.is_resource_request:
        return None
    return (info.resource, info.namespace, info.name, info.api_group, info.api_version, info.subresource)


_REF_KEYS = ("resource", "namespace", "name", "apiGroup", "apiVersion", "subresource")


def object_ref(parts: tuple[str, ...] | None) -> dict[str, Any] | None:
    if parts is None:
        return None
    return {key: value for key, value in zip(_REF_KEYS, parts, strict=True) if value}


def completed_object_ref(pending: PendingEvent, obj: Any) -> dict[str, Any] | None:
    """The objectRef with what the path did not name (a create's name) taken from the request's
    object, as upstream fills it; None when the object adds nothing."""
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    ref = object_ref(pending.ref)
    if ref is None or not isinstance(metadata, dict):
        return None
    for key in ("namespace", "name", "uid", "resourceVersion"):
        if not ref.get(key) and metadata.get(key):
            ref[key] = metadata[key]
    return ref


def decode_json(body: bytes | None, content_type: str) -> Any:
    """A JSON body as an object; None for other media types or what does not parse."""
    if not body or "json" not in content_type:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def without_managed_fields(obj: Any) -> Any:
    """A copy with `metadata.managedFields` dropped from the object and from a list's items."""
    if not isinstance(obj, dict):
        return obj
    obj = copy.deepcopy(obj)
    for item in [obj, *(obj.get("items") or [])]:
        metadata = item.get("metadata") if isinstance(item, dict) else None
        if isinstance(metadata, dict):
            metadata.pop("managedFields", None)
    return obj


def response_status(code: int, status_body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The bounded fields of the answer: the code, and for a Status its status, message, reason, details."""
    result: dict[str, Any] = {"metadata": {}}
    if status_body:
        for key in ("status", "message", "reason", "details"):
            if status_body.get(key):
                result[key] = status_body[key]
    result["code"] = code
    return result


class PendingEvent:
    """One audited request's raw inputs, kept as they came: the request path only fills these slots,
    and the backends build the Event objects from them off the request path (the log writer in its
    thread, the webhook in its worker)."""

    __slots__ = (
        "_shared",
        "audit_id",
        "forwarded_for",
        "later",
        "level",
        "line_parts",
        "real_ip",
        "received",
        "ref",
        "remote",
        "status",
        "uri",
        "user",
        "user_agent",
        "verb",
    )

    def __init__(
        self,
        level: Level,
        audit_id: str,
        request: web.BaseRequest,
        info: RequestInfo,
        user: UserInfo | None,
        received: float | None = None,
    ) -> None:
        headers = request.headers
        self.level = level
        self.audit_id = audit_id
        self.uri = request.raw_path
        self.verb = info.verb
        self.user = user
        """None for a request that failed authentication (its event names no user)."""
        self.forwarded_for = headers.get(FORWARDED_FOR, "")
        self.real_ip = headers.get(REAL_IP, "")
        self.remote = request.remote or ""
        self.user_agent = headers.get(USER_AGENT, "")
        self.ref = path_ref(info)
        self.received = wallclock.now() if received is None else received
        self.status: tuple[int, dict[str, Any] | None] | None = None
        """The answer's code and Status body, once known."""
        self.later: dict[str, Any] | None = None
        """Fields known once the answer is (impersonatedUser, a completed objectRef, the objects);
        replaced, never changed in place, so a stage already emitted keeps what it saw."""
        self._shared: tuple[dict[str, Any], list[str], dict[str, Any] | None, str] | None = None
        self.line_parts: tuple[bytes, bytes, float] | None = None
        """What the JSON line of every stage holds (`lines.hold`), encoded by the first stage."""

    def shared(self) -> tuple[dict[str, Any], list[str], dict[str, Any] | None, str]:
        """The user, source IPs, objectRef and received stamp every stage's event holds, built once
        (by whichever backend builds first; the events only read them)."""
        shared = self._shared
        if shared is None:
            user = user_info(self.user) if self.user is not None else {}
            ips = source_ips(self.forwarded_for, self.real_ip, self.remote)
            shared = self._shared = (user, ips, object_ref(self.ref), timestamp(self.received))
        return shared


class StagedEvent(NamedTuple):
    """An event as it stood at a stage: the request's inputs and what the stage saw of the answer."""

    pending: PendingEvent
    stage: str
    stamp: float
    annotations: dict[str, str] | None
    status: tuple[int, dict[str, Any] | None] | None
    later: dict[str, Any] | None

    @property
    def audit_id(self) -> str:
        return self.pending.audit_id

    def build(self) -> dict[str, Any]:
        """The `audit.k8s.io/v1` Event, fields in upstream's order."""
        pending, later = self.pending, self.later or {}
        user, ips, path_ref, received = pending.shared()
        event: dict[str, Any] = {
            "kind": "Event",
            "apiVersion": "audit.k8s.io/v1",
            "level": pending.level.wire,
            "auditID": pending.audit_id,
            "stage": self.stage,
            "requestURI": pending.uri,
            "verb": pending.verb,
            "user": user,
        }
        if "impersonatedUser" in later:
            event["impersonatedUser"] = later["impersonatedUser"]
        event["sourceIPs"] = ips
        if pending.user_agent:
            event["userAgent"] = pending.user_agent
        ref = later.get("objectRef") or path_ref
        if ref is not None:
            event["objectRef"] = ref
        if self.status is not None:
            event["responseStatus"] = response_status(*self.status)
        for key in ("requestObject", "responseObject"):
            if key in later:
                event[key] = later[key]
        event["requestReceivedTimestamp"] = received
        event["stageTimestamp"] = timestamp(self.stamp)
        if self.annotations:
            event["annotations"] = self.annotations
        return event


def stage(pending: PendingEvent, stage_name: str, annotations: dict[str, str]) -> StagedEvent:
    """The event at `stage_name`, stamped now (the first stage with the time the request came)."""
    stamp = pending.received if stage_name == "RequestReceived" else wallclock.now()
    return StagedEvent(
        pending, stage_name, stamp, dict(annotations) if annotations else None, pending.status, pending.later
    )


AuditItem = dict[str, Any] | StagedEvent
"""What backends take: a staged event, or an Event already built (as tests hand them)."""


def materialize(item: AuditItem) -> dict[str, Any]:
    return item.build() if isinstance(item, StagedEvent) else item


def audit_id(item: AuditItem) -> str | None:
    return item.audit_id if isinstance(item, StagedEvent) else item.get("auditID")
