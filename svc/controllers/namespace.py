"""The namespace controller: a deleted namespace's content is removed, then its finalizer.

Upstream `pkg/controller/namespace`: a namespace is queued only once it has a deletion timestamp,
and 5 s later than that (so API servers and storage replicas have all seen the deletion before
the content is listed). A sync reads the namespace live (not from the cache), marks it
Terminating, deletes its content and, once none is left, drops this profile's finalizer through
the `finalize` subresource; the API server then removes the namespace. Content held by
finalizers makes the sync wait half its estimate plus a second before looking again; other
failures back off per namespace up to 60 s. Every `--namespace-sync-period` all terminating
namespaces are queued again.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler
from svc.client.workers import RequeueAfter, run_workers
from svc.client.workqueue import ItemExponentialBackoff, RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.namespace_content import ContentDeleter, conditions, merge_conditions

NAME = "namespace-controller"
DELETION_GRACE_PERIOD = 5.0
Obj = dict[str, Any]


class NamespaceController:
    def __init__(self, context: ControllerContext, *, workers: int = 10, sync_period: float = 300.0) -> None:
        self.context = context
        self.workers = workers
        self.sync_period = sync_period
        self.finalizer = context.profile.namespace_finalizer
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(
            NAME, clock=context.clock, backoff=ItemExponentialBackoff(0.005, 60.0)
        )
        self.deleter = ContentDeleter(
            context.client,
            discovery_group=context.profile.discovery_group,
            metadata_group=context.profile.meta_group,
            clock=context.clock,
        )
        self.namespaces = context.informers.informer("", "v1", "namespaces")
        self.namespaces.add_handler(Handler(on_add=self._enqueue, on_update=lambda _old, ns: self._enqueue(ns)))

    def _enqueue(self, namespace: Obj) -> None:
        metadata = namespace.get("metadata") or {}
        if metadata.get("deletionTimestamp"):
            self.queue.add_after(metadata["name"], DELETION_GRACE_PERIOD)

    async def run(self) -> None:
        resync = asyncio.create_task(self._resync())
        try:
            await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)
        finally:
            resync.cancel()

    async def _resync(self) -> None:
        while True:
            await self.context.clock.sleep(self.sync_period)
            for namespace in self.namespaces.list():
                if (namespace.get("metadata") or {}).get("deletionTimestamp"):
                    self.queue.add(namespace["metadata"]["name"])

    def _path(self, name: str, subresource: str = "") -> str:
        return resource_path("", "v1", "namespaces", name=name, subresource=subresource)

    async def sync(self, name: str) -> None:
        try:
            namespace = await self.context.client.get(self._path(name))
        except ApiError as error:
            if error.code == 404:
                return
            raise
        if not namespace["metadata"].get("deletionTimestamp"):
            return
        status = namespace.setdefault("status", {})
        if status.get("phase") != "Terminating":
            status["phase"] = "Terminating"
            namespace = await self.context.client.update(self._path(name, "status"), namespace)
        if self.finalizer not in ((namespace.get("spec") or {}).get("finalizers") or []):
            return
        discovery_error, remaining = await self.deleter.delete_all(namespace)
        namespace = await self._report(namespace, discovery_error, remaining)
        if discovery_error or remaining.errors:
            raise RuntimeError("; ".join(filter(None, [discovery_error, *remaining.errors])))
        if remaining.estimate > 0:
            raise RequeueAfter(remaining.estimate // 2 + 1, "content is still being removed")
        await self._finalize(namespace)

    async def _report(self, namespace: Obj, discovery_error: str, remaining: Any) -> Obj:
        """Write the deletion conditions when they changed."""
        status = namespace.setdefault("status", {})
        current = status.get("conditions") or []
        now = datetime.fromtimestamp(self.context.clock.wall(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        merged = merge_conditions(current, conditions(discovery_error, remaining), now)
        if merged == current:
            return namespace
        status["conditions"] = merged
        return await self.context.client.update(self._path(namespace["metadata"]["name"], "status"), namespace)

    async def _finalize(self, namespace: Obj) -> None:
        spec = namespace.setdefault("spec", {})
        spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != self.finalizer]
        try:
            await self.context.client.update(self._path(namespace["metadata"]["name"], "finalize"), namespace)
        except ApiError as error:
            if error.code != 404:
                raise
