"""Shared informers: a local cache of one resource kept current by list-then-watch.

The reflector's cycle is upstream's (`client-go/tools/cache/reflector.go`): list, replace the cache
(telling handlers what was added, changed and removed), then watch from the list's resourceVersion
with bookmarks so an idle watch still advances it. A watch that ends is resumed from the last version
seen; a `410 Expired`/`Gone` (the version was compacted away) starts over with a fresh list; any other
failure waits with a capped backoff first. Every `resync_period` handlers are told of every cached object
again, so level-based controllers recover from a missed edge. Indexers map an object to index values
(the namespace index is always present) so a controller asks "which service accounts are in ns x"
without scanning everything. A `transform` rewrites each object before it is cached (client-go's
`SetTransform`); the controller manager's drops `metadata.managedFields`, which no controller reads and
which is most of a small object's size, as upstream's does (`trim_for_cache`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from svc.client.aio import ApiError, AsyncRestClient
from svc.client.clock import Clock, RealClock

log = logging.getLogger(__name__)
Obj = dict[str, Any]
IndexFunc = Callable[[Obj], list[str]]
Transform = Callable[[Obj], Obj]
NAMESPACE_INDEX = "namespace"
_MIN_WATCH_TIMEOUT = 300


def key_of(obj: Obj) -> str:
    """`namespace/name`, or `name` for a cluster-scoped object (client-go's `MetaNamespaceKeyFunc`)."""
    metadata = obj.get("metadata") or {}
    namespace = metadata.get("namespace")
    return f"{namespace}/{metadata.get('name', '')}" if namespace else str(metadata.get("name", ""))


def trim_for_cache(obj: Obj) -> Obj:
    """`obj` as a controller's cache keeps it (changed in place: it was just decoded): without
    `metadata.managedFields`, and with its apiVersion, kind and namespace interned, so the thousands of
    cached objects of one kind or namespace share one copy of each string."""
    for field in ("apiVersion", "kind"):
        value = obj.get(field)
        if isinstance(value, str):
            obj[field] = sys.intern(value)
    metadata = obj.get("metadata")
    if isinstance(metadata, dict):
        metadata.pop("managedFields", None)
        namespace = metadata.get("namespace")
        if isinstance(namespace, str):
            metadata["namespace"] = sys.intern(namespace)
    return obj


def namespace_index(obj: Obj) -> list[str]:
    return [(obj.get("metadata") or {}).get("namespace", "")]


class ListerWatcher(Protocol):
    async def list(self, params: Mapping[str, str]) -> Obj: ...

    def watch(self, params: Mapping[str, str]) -> AsyncIterator[Obj]: ...


@dataclass
class RestListerWatcher:
    """Lists and watches one collection path; with `metadata_group` (`meta.k8s.io` or its brand
    spelling) only objects' metadata is transferred, as client-go's metadata informers do."""

    client: AsyncRestClient
    path: str
    metadata_group: str = ""

    def _accept(self, kind: str) -> dict[str, str] | None:
        if not self.metadata_group:
            return None
        return {"Accept": self.client.content.metadata_accept(kind, self.metadata_group)}

    async def list(self, params: Mapping[str, str]) -> Obj:
        return await self.client.request(
            "GET", self.path, params=params, headers=self._accept("PartialObjectMetadataList")
        )

    def watch(self, params: Mapping[str, str]) -> AsyncIterator[Obj]:
        return self.client.watch(self.path, params, headers=self._accept("PartialObjectMetadata"))


@dataclass
class Handler:
    on_add: Callable[[Obj], None] | None = None
    on_update: Callable[[Obj, Obj], None] | None = None
    on_delete: Callable[[Obj], None] | None = None


class Informer:
    def __init__(
        self,
        source: ListerWatcher,
        *,
        clock: Clock | None = None,
        resync_period: float = 0.0,
        indexers: Mapping[str, IndexFunc] | None = None,
        backoff_max: float = 30.0,
        transform: Transform | None = None,
    ) -> None:
        self.source = source
        self.transform = transform
        self.clock = clock or RealClock()
        self.resync_period = resync_period
        self.backoff_max = backoff_max
        self.indexers: dict[str, IndexFunc] = {NAMESPACE_INDEX: namespace_index, **(indexers or {})}
        self._items: dict[str, Obj] = {}
        self._indices: dict[str, dict[str, set[str]]] = {name: defaultdict(set) for name in self.indexers}
        self._handlers: list[Handler] = []
        self.synced = asyncio.Event()
        self.resource_version = ""
        self.lists = 0

    # --- the cache -------------------------------------------------------------------------------

    def get(self, key: str) -> Obj | None:
        return self._items.get(key)

    def list(self) -> list[Obj]:
        return list(self._items.values())

    def keys(self) -> list[str]:
        return list(self._items)

    def by_index(self, index: str, value: str) -> list[Obj]:
        return [self._items[key] for key in self._indices[index].get(value, ())]

    def add_handler(self, handler: Handler) -> None:
        """Register `handler`; objects already cached are announced to it as adds, as client-go does."""
        self._handlers.append(handler)
        for obj in list(self._items.values()):
            self._notify(handler.on_add, obj)

    def _put(self, obj: Obj) -> Obj | None:
        key = key_of(obj)
        old = self._items.get(key)
        if old is not None:
            self._unindex(key, old)
        self._items[key] = obj
        for name, function in self.indexers.items():
            for value in function(obj):
                self._indices[name][value].add(key)
        return old

    def _remove(self, key: str) -> Obj | None:
        old = self._items.pop(key, None)
        if old is not None:
            self._unindex(key, old)
        return old

    def _unindex(self, key: str, obj: Obj) -> None:
        for name, function in self.indexers.items():
            for value in function(obj):
                keys = self._indices[name].get(value)
                if keys is not None:
                    keys.discard(key)
                    if not keys:
                        del self._indices[name][value]

    # --- notifications ---------------------------------------------------------------------------

    def _notify(self, callback: Callable[..., None] | None, *objects: Obj) -> None:
        """Call one handler; an exception it raises (an object it cannot handle) is logged and does
        not reach the reflector, which would otherwise stop and leave every other handler deaf."""
        if callback is None:
            return
        try:
            callback(*objects)
        except Exception:
            log.exception("informer: an event handler failed on %s", key_of(objects[-1]))

    def _added(self, obj: Obj) -> None:
        for handler in self._handlers:
            self._notify(handler.on_add, obj)

    def _updated(self, old: Obj, new: Obj) -> None:
        for handler in self._handlers:
            self._notify(handler.on_update, old, new)

    def _deleted(self, obj: Obj) -> None:
        for handler in self._handlers:
            self._notify(handler.on_delete, obj)

    def _apply(self, event_type: str, obj: Obj) -> None:
        if event_type == "DELETED":
            old = self._remove(key_of(obj))
            self._deleted(old if old is not None else obj)
            return
        old = self._put(obj)
        if old is None:
            self._added(obj)
        else:
            self._updated(old, obj)

    def replace(self, items: list[Obj]) -> None:
        """Make the cache hold exactly `items` (after a list; tests seed caches with it too)."""
        fresh = {key_of(obj): obj for obj in items}
        for key in [key for key in self._items if key not in fresh]:
            old = self._remove(key)
            if old is not None:
                self._deleted(old)
        for obj in fresh.values():
            self._apply("ADDED", obj)

    # --- the reflector ---------------------------------------------------------------------------

    async def run(self) -> None:
        """List and watch until cancelled."""
        resync = asyncio.create_task(self._resync_loop()) if self.resync_period > 0 else None
        failures = 0
        try:
            while True:
                try:
                    await self._list()
                    failures = 0
                    while await self._watch():
                        pass
                except ApiError as error:
                    if error.code != 410:
                        failures += 1
                        log.warning("informer list/watch failed: %s", error)
                        await self.clock.sleep(self._backoff(failures))
                except (TimeoutError, OSError, ValueError) as error:
                    failures += 1
                    log.warning("informer list/watch failed: %s", error)
                    await self.clock.sleep(self._backoff(failures))
        finally:
            if resync is not None:
                resync.cancel()

    def _backoff(self, failures: int) -> float:
        return min(0.8 * 2 ** (failures - 1), self.backoff_max)

    async def _list(self) -> None:
        listed = await self.source.list({})
        self.lists += 1
        items = listed.get("items") or []
        self.replace([self.transform(obj) for obj in items] if self.transform is not None else items)
        self.resource_version = str((listed.get("metadata") or {}).get("resourceVersion", ""))
        self.synced.set()

    async def _watch(self) -> bool:
        """One watch from the last version; True when it ended normally and should simply be resumed,
        raises `ApiError(410)` when the version is too old and a new list is needed."""
        params = {
            "resourceVersion": self.resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(int(_MIN_WATCH_TIMEOUT * (1 + random.random()))),
        }
        async for event in self.source.watch(params):
            event_type = event.get("type", "")
            obj = event.get("object") or {}
            if event_type == "ERROR":
                code = int(obj.get("code") or 500)
                raise ApiError(code, obj)
            version = (obj.get("metadata") or {}).get("resourceVersion")
            if event_type != "BOOKMARK":
                self._apply(event_type, self.transform(obj) if self.transform is not None else obj)
            if version:
                self.resource_version = str(version)
        return True

    async def _resync_loop(self) -> None:
        while True:
            await self.clock.sleep(self.resync_period)
            for obj in list(self._items.values()):
                self._updated(obj, obj)
