"""Building `audit.k8s.io/v1` Event objects from a request (pure data, no I/O)."""

from __future__ import annotations

import copy
import json
import math
import time
from typing import Any

from aiohttp import web

from svc.apiserver.audit.policy import Level
from svc.apiserver.request_info import RequestInfo
from svc.machinery import wallclock
from svc.registry.admission import UserInfo

_second: tuple[int, str] = (0, "1970-01-01T00:00:00")
"""The last whole second formatted: every event of that second reuses it and adds its microseconds."""


def timestamp(seconds: float) -> str:
    """Upstream's MicroTime: RFC 3339 with microseconds, in UTC, of `seconds` since the epoch."""
    global _second
    fraction, whole_float = math.modf(seconds)
    whole, micros = divmod(int(whole_float) * 1_000_000 + round(fraction * 1_000_000), 1_000_000)
    if _second[0] != whole:
        _second = (whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)))
    return f"{_second[1]}.{micros:06d}Z"


def user_info(user: UserInfo) -> dict[str, Any]:
    info: dict[str, Any] = {"username": user.name}
    if user.uid:
        info["uid"] = user.uid
    if user.groups:
        info["groups"] = list(user.groups)
    if user.extra:
        info["extra"] = {key: list(values) for key, values in user.extra.items()}
    return info


def source_ips(request: web.BaseRequest) -> list[str]:
    """X-Forwarded-For, then X-Real-Ip, then the peer, without repeats (upstream's SourceIPs)."""
    ips = [ip.strip() for ip in request.headers.get("X-Forwarded-For", "").split(",") if ip.strip()]
    for ip in (request.headers.get("X-Real-Ip", "").strip(), request.remote or ""):
        if ip and ip not in ips:
            ips.append(ip)
    return ips


def object_ref(info: RequestInfo) -> dict[str, Any] | None:
    if not info.is_resource_request:
        return None
    fields = {
        "resource": info.resource,
        "namespace": info.namespace,
        "name": info.name,
        "apiGroup": info.api_group,
        "apiVersion": info.api_version,
        "subresource": info.subresource,
    }
    return {key: value for key, value in fields.items() if value}


def complete_object_ref(ref: dict[str, Any], obj: Any) -> None:
    """Fill what the path did not name (a create's name) from the request's object, as upstream does."""
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(metadata, dict):
        return
    for key in ("namespace", "name", "uid", "resourceVersion"):
        if not ref.get(key) and metadata.get(key):
            ref[key] = metadata[key]


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


def new_event(
    level: Level, audit_id: str, request: web.BaseRequest, info: RequestInfo, user: UserInfo, received: float
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": level.wire,
        "auditID": audit_id,
        "stage": "RequestReceived",
        "requestURI": request.raw_path,
        "verb": info.verb,
        "user": user_info(user),
        "sourceIPs": source_ips(request),
    }
    if user_agent := request.headers.get("User-Agent"):
        event["userAgent"] = user_agent
    if (ref := object_ref(info)) is not None:
        event["objectRef"] = ref
    event["requestReceivedTimestamp"] = timestamp(received)
    return event


def stage_event(event: dict[str, Any], stage: str, annotations: dict[str, str]) -> dict[str, Any]:
    """The event as it stands at `stage`, stamped now (a copy: later stages add to the original); the
    first stage happens as the request is received, so it carries that stamp."""
    stamp = event["requestReceivedTimestamp"] if stage == "RequestReceived" else timestamp(wallclock.now())
    staged = dict(event, stage=stage, stageTimestamp=stamp)
    if annotations:
        staged["annotations"] = dict(annotations)
    return staged
