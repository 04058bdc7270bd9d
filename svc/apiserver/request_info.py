"""What a request is about, read from its method, path and query (upstream `RequestInfoFactory`).

Authorization, audit, limits and routing all work from this one parse, so they always agree on the
verb, the resource and the namespace of a request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

_METHOD_VERBS = {
    "POST": "create",
    "GET": "get",
    "HEAD": "get",
    "PUT": "update",
    "PATCH": "patch",
    "DELETE": "delete",
}
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})
_API_PREFIXES = frozenset({"api", "apis"})


@dataclass
class RequestInfo:
    path: str
    verb: str
    is_resource_request: bool = False
    api_prefix: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    path_name: str = ""


def _truthy(value: str) -> bool:
    return value.lower() not in ("false", "0")


def _exact_name(field_selector: str) -> str:
    """The name a field selector pins down (`metadata.name=x`), as upstream uses it for authorization."""
    for term in field_selector.split(","):
        key, sep, value = term.partition("=")
        key = key.strip().rstrip("=")
        if sep and key == "metadata.name" and not value.startswith("="):
            value = value.lstrip("=").strip()
            if value and "/" not in value and value not in (".", ".."):
                return value
    return ""


def parse_request_info(method: str, path: str, query: Mapping[str, str]) -> RequestInfo:
    verb = method.lower()
    info = RequestInfo(path=path, verb=verb)
    parts = [part for part in path.strip("/").split("/")] if path.strip("/") else []
    if not parts or parts[0] not in _API_PREFIXES:
        return info
    info.api_prefix = parts[0]
    parts = parts[1:]
    if info.api_prefix == "api":
        if not parts:
            return info
        info.api_version, parts = parts[0], parts[1:]
    else:
        if len(parts) < 2:
            return info
        info.api_group, info.api_version, parts = parts[0], parts[1], parts[2:]
    if not parts:
        return info
    info.is_resource_request = True
    info.verb = _METHOD_VERBS.get(method.upper(), method.lower())
    watch_prefix = parts[0] == "watch"
    if watch_prefix:
        parts = parts[1:]
        info.verb = "watch"
        if not parts:
            info.is_resource_request = False
            return info
    if parts[0] == "namespaces" and len(parts) > 1:
        info.namespace = parts[1]
        if len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
            parts = parts[2:]
    info.parts = parts
    info.resource = parts[0]
    if len(parts) >= 2:
        info.name = info.path_name = parts[1]
    if len(parts) >= 3:
        info.subresource = parts[2]
    if not info.name and info.verb == "get":
        info.verb = "watch" if _truthy(query.get("watch", "false")) and "watch" in query else "list"
        info.name = _exact_name(query.get("fieldSelector", ""))
    if info.verb == "watch" and watch_prefix and info.name:
        info.path_name = info.name
    if not info.path_name and info.verb == "delete":
        info.verb = "deletecollection"
    return info
