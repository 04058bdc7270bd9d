"""Garbage collection by owner references, run inside the API server.

Upstream's garbage collector (a controller) honours the `orphan` and `foregroundDeletion` finalizers
that a delete's propagation policy adds, and deletes dependents whose owners are all gone. Until the
controller daemon exists, this loop does that job here so that `kubectl delete --cascade=...`
completes. It follows every change of the whole store through one backend watch and keeps a small
graph: live objects by uid, and the dependents of each owner uid.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from svc.machinery import status
from svc.registry.admission import UserInfo
from svc.registry.delete import FOREGROUND, ORPHAN
from svc.registry.options import DeleteOptions, WriteOptions
from svc.registry.store import GenericStore
from svc.storage import errors
from svc.storage.backend import EventType, Progress, range_pages

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)
Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Node:
    """What collection needs to know of an object (kept small: the graph spans the whole store)."""

    uid: str
    owners: tuple[str, ...]
    finalizers: tuple[str, ...]
    deleting: bool

    @classmethod
    def of(cls, obj: Obj) -> Node:
        metadata = obj.get("metadata") or {}
        owners = tuple(owner.get("uid", "") for owner in metadata.get("ownerReferences") or [])
        finalizers = tuple(metadata.get("finalizers") or ())
        return cls(metadata.get("uid", ""), owners, finalizers, "deletionTimestamp" in metadata)


class Graph:
    """Live objects by key and uid and, for each owner uid, the keys of its dependents."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.key_of: dict[str, str] = {}
        self.dependents: dict[str, set[str]] = defaultdict(set)

    def put(self, key: str, obj: Obj) -> None:
        self.remove(key)
        node = self.nodes[key] = Node.of(obj)
        if node.uid:
            self.key_of[node.uid] = key
        for owner in node.owners:
            self.dependents[owner].add(key)

    def remove(self, key: str) -> Node | None:
        node = self.nodes.pop(key, None)
        if node is None:
            return None
        self.key_of.pop(node.uid, None)
        for owner in node.owners:
            self.dependents[owner].discard(key)
            if not self.dependents[owner]:
                del self.dependents[owner]
        return node

    def orphaned(self, key: str) -> bool:
        """All owners of the object are gone."""
        owners = self.nodes[key].owners
        return bool(owners) and all(owner not in self.key_of for owner in owners)


class GarbageCollector:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.graph = Graph()
        self.user = UserInfo(f"system:serviceaccount:{server.profile.system_namespace}:generic-garbage-collector")
        self._stores: dict[str, GenericStore] = {}
        for store in server.stores.values():
            self._stores.setdefault(store.root + store.resource.storage_prefix, store)

    def _store_for(self, key: str) -> tuple[GenericStore, str, str] | None:
        for prefix, store in self._stores.items():
            if key.startswith(prefix):
                rest = key[len(prefix) :]
                namespace, _, name = rest.rpartition("/")
                return store, namespace, name
        return None

    async def run(self) -> None:
        objects = self.server.objects
        assert objects is not None
        root = self.server.options.store_prefix + "/"
        while True:
            try:
                revision = 0
                async for page in range_pages(objects.backend, root):
                    revision = page.revision
                    for kv in page.kvs:
                        with contextlib.suppress(errors.CorruptObjectError):
                            self.graph.put(kv.key, objects.decode(kv))
                await self.sweep(list(self.graph.nodes))
                async for event in objects.backend.watch(root, after_revision=revision):
                    if isinstance(event, Progress):
                        continue
                    await self.changed(event)
            except errors.StorageError as error:
                log.warning("garbage collector restarting after: %s", error)
                self.graph = Graph()
                await asyncio.sleep(0.5)

    async def changed(self, event: Any) -> None:
        key = event.kv.key
        before = self.graph.remove(key)
        owners = set(before.owners if before else ())
        if event.type is not EventType.DELETE:
            try:
                assert self.server.objects is not None
                self.graph.put(key, self.server.objects.decode(event.kv))
            except errors.CorruptObjectError:
                return
            owners |= set(self.graph.nodes[key].owners)
        waiting = [self.graph.key_of[uid] for uid in sorted(owners) if uid in self.graph.key_of]
        gone = before is not None and event.type is EventType.DELETE
        dependents = sorted(self.graph.dependents.get(before.uid, ())) if gone else []
        current = [key] if key in self.graph.nodes else []
        await self.sweep([*current, *waiting, *dependents])

    async def sweep(self, keys: list[str]) -> None:
        for key in keys:
            node = self.graph.nodes.get(key)
            if node is None:
                continue
            try:
                await self._collect(key, node)
            except (status.StatusError, errors.StorageError) as error:
                log.info("garbage collector: %s: %s", key, error)

    async def _collect(self, key: str, node: Node) -> None:
        if node.deleting and ORPHAN in node.finalizers:
            for dependent in sorted(self.graph.dependents.get(node.uid, ())):
                await self._drop_owner(dependent, node.uid)
            await self._drop_finalizer(key, ORPHAN)
        elif node.deleting and FOREGROUND in node.finalizers:
            dependents = sorted(self.graph.dependents.get(node.uid, ()))
            for dependent in dependents:
                await self._delete(dependent, "Foreground")
            if not dependents:
                await self._drop_finalizer(key, FOREGROUND)
        elif not node.deleting and self.graph.orphaned(key):
            await self._delete(key, "Background")

    async def _update(self, key: str, change: Any) -> None:
        found = self._store_for(key)
        if found is None:
            return
        store, namespace, name = found

        async def apply_change(current: Obj | None) -> Obj:
            if current is None:
                raise status.not_found(store.resource.group_resource, name)
            change(current["metadata"])
            return current

        with contextlib.suppress(status.StatusError):
            await store.update(
                namespace,
                name,
                apply_change,
                admission=self.server.admission,
                user=self.user,
                options=WriteOptions(),
                allow_create=False,
            )

    async def _drop_owner(self, key: str, owner_uid: str) -> None:
        def change(metadata: Obj) -> None:
            kept = [o for o in metadata.get("ownerReferences") or [] if o.get("uid") != owner_uid]
            if kept:
                metadata["ownerReferences"] = kept
            else:
                metadata.pop("ownerReferences", None)

        await self._update(key, change)

    async def _drop_finalizer(self, key: str, finalizer: str) -> None:
        def change(metadata: Obj) -> None:
            metadata["finalizers"] = [f for f in metadata.get("finalizers") or [] if f != finalizer]

        await self._update(key, change)

    async def _delete(self, key: str, policy: str) -> None:
        found = self._store_for(key)
        node = self.graph.nodes.get(key)
        if found is None or node is None or node.deleting:
            return
        store, namespace, name = found
        with contextlib.suppress(status.StatusError):
            await store.delete(
                namespace,
                name,
                DeleteOptions(propagation_policy=policy),
                admission=self.server.admission,
                user=self.user,
            )
