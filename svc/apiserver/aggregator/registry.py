"""What the aggregator knows of the APIService objects: which group versions are served remotely,
where, with which TLS settings, and whether they are available.

It is refreshed from the APIService store (its watch cache) by the controllers' loops and, for a
request that names a group version it does not know yet, on demand: an APIService created a moment
ago routes at once.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from svc.apiserver.webhook_client import ServiceReference

Obj = dict[str, Any]


@dataclass(frozen=True)
class RemoteService:
    """One APIService with a service reference: the extension server behind a group version."""

    name: str
    group: str
    version: str
    service: ServiceReference
    ca_bundle: bytes
    insecure: bool
    group_priority: int
    version_priority: int
    available: bool


def condition(obj: Obj, kind: str = "Available") -> Obj | None:
    for entry in (obj.get("status") or {}).get("conditions") or ():
        if entry.get("type") == kind:
            return entry
    return None


def remote_service(obj: Obj) -> RemoteService | None:
    """The remote service an APIService names, or None for a local one."""
    spec = obj.get("spec") or {}
    service = spec.get("service")
    if not service:
        return None
    try:
        ca_bundle = base64.b64decode(spec.get("caBundle") or "", validate=True)
    except (binascii.Error, ValueError):
        ca_bundle = b"\x00"
    available = condition(obj)
    return RemoteService(
        name=obj["metadata"]["name"],
        group=spec.get("group") or "",
        version=spec.get("version") or "",
        service=ServiceReference(
            namespace=service.get("namespace") or "",
            name=service.get("name") or "",
            port=int(service.get("port") or 443),
        ),
        ca_bundle=ca_bundle,
        insecure=bool(spec.get("insecureSkipTLSVerify")),
        group_priority=int(spec.get("groupPriorityMinimum") or 0),
        version_priority=int(spec.get("versionPriority") or 0),
        available=available is not None and available.get("status") == "True",
    )


class Registry:
    """Remote group versions by (group, version); replaced whole on each refresh."""

    def __init__(self) -> None:
        self.remote: dict[tuple[str, str], RemoteService] = {}
        self.objects: dict[str, Obj] = {}
        self.generation = 0

    def replace(self, objects: list[Obj]) -> None:
        remote = {}
        for obj in objects:
            entry = remote_service(obj)
            if entry is not None:
                remote[(entry.group, entry.version)] = entry
        if remote != self.remote:
            self.generation += 1
        self.remote = remote
        self.objects = {obj["metadata"]["name"]: obj for obj in objects}

    def lookup(self, group: str, version: str) -> RemoteService | None:
        return self.remote.get((group, version))

    def remote_groups(self) -> dict[str, list[RemoteService]]:
        """Remote groups, each with its versions in upstream's order (version priority, then name)."""
        groups: dict[str, list[RemoteService]] = {}
        for entry in self.remote.values():
            groups.setdefault(entry.group, []).append(entry)
        for versions in groups.values():
            versions.sort(key=lambda e: (-e.version_priority, e.version))
        return dict(sorted(groups.items(), key=lambda item: (-max(e.group_priority for e in item[1]), item[0])))
