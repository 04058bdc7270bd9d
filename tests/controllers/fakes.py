"""A recording stand-in for the REST client, and a controller context over seeded caches, so a
controller's `sync` is tested without a server and with a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from svc.api.brand import PROFILES
from svc.client.aio import ApiError
from svc.client.clock import FakeClock
from svc.client.content import ContentConfig
from svc.controllers.context import ControllerContext, InformerFactory

Obj = dict[str, Any]


class RecordingClient:
    """Records calls; Events a controller records go to `events`, apart from the calls its sync makes."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Obj | None]] = []
        self.events: list[tuple[str, str, Obj | None]] = []
        self.failures: dict[str, Exception] = {}
        self.objects: dict[str, Obj] = {}
        self.watch_events: list[Obj] = []
        self.content = ContentConfig()

    async def _record(self, verb: str, path: str, body: Obj | None) -> Obj:
        if "/events" in path:
            self.events.append((verb, path, body))
            return body or {}
        self.calls.append((verb, path, body))
        if verb in self.failures:
            raise self.failures[verb]
        return body or {}

    async def get(self, path: str, **params: str) -> Obj:
        """The object seeded at `path` in `objects`, else a NotFound."""
        await self._record("get", path, dict(params) or None)
        if path not in self.objects:
            raise ApiError(404, {"kind": "Status", "code": 404, "reason": "NotFound"})
        return self.objects[path]

    async def request(self, method: str, path: str, *, body: Any = None, **_options: Any) -> Obj:
        """A GET answers from `objects` as `get` does (discovery documents, lists); other verbs are recorded."""
        if method == "GET":
            return await self.get(path)
        return await self._record(method.lower(), path, body)

    async def create(self, path: str, body: Obj) -> Obj:
        return await self._record("create", path, body)

    async def update(self, path: str, body: Obj) -> Obj:
        return await self._record("update", path, body)

    async def patch(self, path: str, body: Obj, *, patch_type: str = "merge") -> Obj:
        return await self._record(f"patch:{patch_type}", path, body)

    async def delete(self, path: str, body: Obj | None = None) -> Obj:
        return await self._record("delete", path, body)

    async def apply(self, path: str, body: Obj, *, field_manager: str, force: bool = True) -> Obj:
        return await self._record(f"apply:{field_manager}{':force' if force else ''}", path, body)

    async def watch(self, path: str, params: dict[str, str]) -> AsyncIterator[Obj]:
        """The events seeded in `watch_events`, then the end of the stream."""
        self.calls.append(("watch", path, dict(params)))
        for event in self.watch_events:
            yield event


def make_context(profile: str = "svc", *, root_ca: bytes = b"") -> tuple[ControllerContext, RecordingClient]:
    client = RecordingClient()
    clock = FakeClock()
    factory = InformerFactory(client, PROFILES[profile], clock=clock)  # type: ignore[arg-type]
    context = ControllerContext(client, PROFILES[profile], factory, clock=clock, root_ca=root_ca)  # type: ignore[arg-type]
    return context, client


def namespace(name: str, phase: str = "Active") -> Obj:
    return {"metadata": {"name": name}, "status": {"phase": phase}}


def status_error(code: int, reason: str, causes: list[str] = ()) -> ApiError:  # type: ignore[assignment]
    details = {"causes": [{"type": cause} for cause in causes]}
    return ApiError(code, {"kind": "Status", "code": code, "reason": reason, "details": details})


def served(resource: str, kind: str, *, namespaced: bool = True, verbs: tuple[str, ...] = ()) -> Obj:
    """One resource of an aggregated discovery document (every verb unless `verbs` are given)."""
    verbs = verbs or ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
    scope = "Namespaced" if namespaced else "Cluster"
    return {"resource": resource, "responseKind": {"kind": kind}, "scope": scope, "verbs": list(verbs)}


def seed_core_discovery(client: RecordingClient, *resources: Obj) -> None:
    """Make discovery (`/api` and `/apis`) find `resources` in the core group, version v1, and no other group."""
    core = {"metadata": {"name": ""}, "versions": [{"version": "v1", "resources": list(resources)}]}
    client.objects |= {"/api": {"items": [core]}, "/apis": {"items": []}}
