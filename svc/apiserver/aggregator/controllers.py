"""The aggregator's control loops in the API server: autoregister (local APIServices) and the
availability controller (the `Available` condition, and the discovery documents and OpenAPI specs of
extension servers, fetched once they answer).

Both are level-based over the APIService objects and run on one timer; each pass also refreshes the
`Registry` the proxy routes by. A remote APIService is checked every pass (upstream re-checks on every
Service and endpoint change and every 30 s; svc has no informers in the server, so it polls).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import time
from collections.abc import Callable
from typing import Any

from svc.api.kinds.custom_resource_definitions import set_condition
from svc.apiserver.aggregator import local_services
from svc.apiserver.aggregator.availability import LOCAL, AvailabilityChecker
from svc.apiserver.aggregator.discovery import RemoteDocuments
from svc.apiserver.aggregator.openapi import RemoteSpecs
from svc.apiserver.aggregator.registry import Registry, condition, remote_service
from svc.machinery import status
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import DeleteOptions, ListOptions, WriteOptions
from svc.registry.store import GenericStore

Obj = dict[str, Any]
log = logging.getLogger(__name__)


def _holds(current: Obj | None, wanted: Obj) -> bool:
    return current is not None and all(current.get(k) == v for k, v in wanted.items())


class Controllers:
    def __init__(
        self,
        *,
        store: Callable[[], GenericStore],
        served: Callable[[], list[tuple[str, str]]],
        built_in: frozenset[str],
        profile: Any,
        checker: AvailabilityChecker,
        specs: RemoteSpecs,
        registry: Registry,
        user: UserInfo,
        interval: float,
    ) -> None:
        self._store = store
        self._served = served
        self._built_in = built_in
        self._profile = profile
        self.checker = checker
        self.specs = specs
        self.registry = registry
        self.user = user
        self.interval = interval
        self.discovery = RemoteDocuments()
        self.pending_local: set[str] = set()
        self.registered = False
        self.checked = False

    async def refresh(self) -> list[Obj]:
        listed = (await self._store().list("", ListOptions()))["items"]
        self.registry.replace(listed)
        return listed

    async def autoregister(self, listed: list[Obj]) -> None:
        store = self._store()
        api_version = store.resource.api_version
        wanted = local_services.desired(self._profile, self._served(), self._built_in, api_version)
        current = {obj["metadata"]["name"]: obj for obj in listed}
        self.pending_local = set(wanted) - set(current)
        writes = []
        for name, obj in wanted.items():
            existing = current.get(name)
            if existing is None:
                writes.append(self._create(store, obj))
            elif local_services.automanaged(existing, self._profile) and local_services.differs(existing, obj):
                writes.append(self._replace_spec(store, name, obj))
        # `true` APIServices follow what is served; `onstart` ones are only pruned at start, as upstream
        prunable = {local_services.MANAGED} if self.registered else {local_services.MANAGED, local_services.ON_START}
        writes += [
            self._delete(store, name)
            for name, existing in current.items()
            if name not in wanted and local_services.automanaged(existing, self._profile) in prunable
        ]
        await asyncio.gather(*writes)  # concurrently: on etcd each write waits for a commit
        if self.pending_local:
            self.pending_local -= await self._names(store)
        self.registered = not self.pending_local

    async def _names(self, store: GenericStore) -> set[str]:
        return {obj["metadata"]["name"] for obj in (await store.list("", ListOptions()))["items"]}

    async def _delete(self, store: GenericStore, name: str) -> None:
        with contextlib.suppress(status.StatusError):
            await store.delete("", name, DeleteOptions(), admission=NoAdmission(), user=self.user)

    async def _create(self, store: GenericStore, obj: Obj) -> None:
        with contextlib.suppress(status.StatusError):
            await store.create("", copy.deepcopy(obj), admission=NoAdmission(), user=self.user, options=WriteOptions())

    async def _replace_spec(self, store: GenericStore, name: str, wanted: Obj) -> None:
        async def transform(current: Obj | None) -> Obj:
            if current is None:
                raise status.not_found(store.resource.group_resource, name)
            updated = copy.deepcopy(current)
            updated["spec"] = copy.deepcopy(wanted["spec"])
            updated["metadata"].setdefault("labels", {}).update(wanted["metadata"]["labels"])
            return updated

        with contextlib.suppress(status.StatusError):
            await store.update("", name, transform, admission=NoAdmission(), user=self.user, options=WriteOptions())

    async def check_availability(self, listed: list[Obj]) -> None:
        store = self._store()
        results = await asyncio.gather(*(self._wanted_condition(obj) for obj in listed))
        await asyncio.gather(
            *(
                self._write_condition(store, obj["metadata"]["name"], wanted)
                for obj, wanted in zip(listed, results, strict=True)
                if not _holds(condition(obj), wanted)
            )
        )
        self.checked = True

    async def _wanted_condition(self, obj: Obj) -> Obj:
        entry = remote_service(obj)
        if entry is None:
            return dict(LOCAL)
        try:
            verdict = await self.checker.check(entry)
        except status.StatusError as error:
            return {"type": "Available", "status": "Unknown", "reason": "ServiceAccessError", "message": error.message}
        if verdict.discovery is not None:
            self.discovery.put((entry.group, entry.version), verdict.discovery)
            now = time.monotonic()
            if self.specs.stale(entry, now):
                await self.specs.fetch(entry, now)
        return verdict.condition()

    async def _write_condition(self, store: GenericStore, name: str, wanted: Obj) -> None:
        async def transform(current: Obj | None) -> Obj:
            if current is None:
                raise status.not_found(store.resource.group_resource, name)
            updated = copy.deepcopy(current)
            set_condition(updated, wanted)
            return updated

        with contextlib.suppress(status.StatusError):
            await store.update(
                "", name, transform, admission=NoAdmission(), user=self.user, options=WriteOptions(subresource="status")
            )

    async def sync_once(self) -> None:
        listed = await self.refresh()
        await self.autoregister(listed)
        listed = await self.refresh()
        await self.check_availability(listed)
        await self.refresh()

    async def run(self) -> None:
        while True:
            try:
                await self.sync_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("aggregator controllers: pass failed; retrying")
            await asyncio.sleep(self.interval)
