"""The resourcequota controller: each ResourceQuota's `status.hard` and `status.used`.

Upstream `pkg/controller/resourcequota` with the evaluators of `pkg/quota/v1/evaluator/core`: the
key is a quota; it is queued when the quota appears or its spec or status changes, when a counted object in
its namespace appears, changes or goes, and every `sync_period` for a full recalculation. A sync
measures only what the quota limits: object counts (`pods`, `services`, `configmaps`, `secrets`,
`persistentvolumeclaims`, `replicationcontrollers`, `resourcequotas`, `count/<resource>[.<group>]`),
the requests and limits of pods that still run (not terminal, not past their deletion grace period),
load-balancer and node-port services and claimed storage (also per storage class), each object as the
API server's quota admission counts it (`svc/api/quota_usage.py`), pods only where the quota's scopes
select them; then writes the status subresource if it changed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from svc.api import quota_usage
from svc.client.aio import resource_path
from svc.client.discovery import ApiResource, server_resources
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.machinery.quantity import Quantity

NAME = "resourcequota-controller"
Obj = dict[str, Any]

# Resources counted from informers; any other `count/` resource is listed when a quota names it.
CACHED = (
    "pods",
    "services",
    "configmaps",
    "secrets",
    "persistentvolumeclaims",
    "replicationcontrollers",
    "resourcequotas",
)


class ResourceQuotaController:
    def __init__(self, context: ControllerContext, *, workers: int = 5, sync_period: float = 300.0) -> None:
        self.context = context
        self.workers = workers
        self.sync_period = sync_period
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.quotas = context.informers.informer("", "v1", "resourcequotas")
        self.counted: dict[str, Informer] = {
            resource: context.informers.informer("", "v1", resource) for resource in CACHED
        }
        self.quotas.add_handler(Handler(on_add=self._queue_quota, on_update=self._changed))
        for resource, informer in self.counted.items():
            if resource != "resourcequotas":
                informer.add_handler(
                    Handler(
                        on_add=self._queue_namespace,
                        on_update=lambda _old, new: self._queue_namespace(new),
                        on_delete=self._queue_namespace,
                    )
                )
        self._resources: list[ApiResource] = []

    def _queue_quota(self, quota: Obj) -> None:
        self.queue.add(key_of(quota))

    def _changed(self, old: Obj, new: Obj) -> None:
        """A spec change, and also a status change: a sync that compared against a cache not yet
        showing its last write may have skipped a needed one, so it looks again once it shows."""
        if old.get("spec") != new.get("spec") or old.get("status") != new.get("status"):
            self.queue.add(key_of(new))

    def _queue_namespace(self, obj: Obj) -> None:
        for quota in self.quotas.by_index(NAMESPACE_INDEX, (obj.get("metadata") or {}).get("namespace", "")):
            self.queue.add(key_of(quota))

    async def run(self) -> None:
        await asyncio.gather(run_workers(self.queue, self.sync, workers=self.workers, name=NAME), self._resync())

    async def _resync(self) -> None:
        """Upstream's full recalculation: every quota again each `sync_period`."""
        while True:
            await self.context.clock.sleep(self.sync_period)
            for quota in self.quotas.list():
                self.queue.add(key_of(quota))

    async def sync(self, key: str) -> None:
        quota = self.quotas.get(key)
        if quota is None:
            return
        namespace = quota["metadata"].get("namespace", "")
        hard: dict[str, str] = dict((quota.get("spec") or {}).get("hard") or {})
        status = quota.get("status") or {}
        used = await self.used(quota, namespace, hard, status.get("used") or {})
        if status.get("hard") == hard and status.get("used") == used:
            return
        path = resource_path(
            "", "v1", "resourcequotas", namespace=namespace, name=quota["metadata"]["name"], subresource="status"
        )
        await self.context.client.update(path, {**quota, "status": {"hard": hard, "used": used}})

    async def used(self, quota: Obj, namespace: str, hard: dict[str, str], before: dict[str, str]) -> dict[str, str]:
        """Upstream's `CalculateUsage` masked to the hard limits: what the namespace's objects the quota's
        scopes select use of each tracked resource; one no evaluator tracks keeps its earlier value, if any."""
        totals: dict[str, Quantity | None] = {name: None for name in hard if quota_usage.tracks(name)}
        for resource in CACHED:
            for obj in self._objects(resource, namespace):
                if not quota_usage.matches_scopes(quota, "", resource, obj):
                    continue
                for name, amount in quota_usage.usage("", resource, obj).items():
                    if name in totals:
                        totals[name] = quota_usage.add_all((totals[name], amount))
        used: dict[str, str] = {}
        for name in hard:
            resource = name.removeprefix("count/")
            if name.startswith("count/") and resource not in CACHED:
                count = await self._count(resource, namespace) if not _scoped(quota) else 0
                if count is not None:
                    used[name] = str(count)
                elif name in before:
                    used[name] = before[name]
            elif name in totals:
                total = totals[name]
                used[name] = total.canonical() if total is not None else "0"
            elif name in before:
                used[name] = before[name]
        return used

    def _objects(self, resource: str, namespace: str) -> list[Obj]:
        objects = self.counted[resource].by_index(NAMESPACE_INDEX, namespace)
        if resource == "pods":
            return [pod for pod in objects if quota_usage.counts_as_running(pod, self.context.clock.wall())]
        return objects

    async def _count(self, group_resource: str, namespace: str) -> int | None:
        """Objects of a resource no informer here caches, by listing it (`deployments.apps`); None when
        the server does not serve it (no evaluator tracks it)."""
        resource, _, group = group_resource.partition(".")
        served = self.context.profile.group(group)
        match = await self._find(
            lambda r: r.resource == resource and r.group == served and r.preferred and r.namespaced
        )
        if match is None:
            return None
        listed = await self.context.client.get(resource_path(match.group, match.version, resource, namespace=namespace))
        return len(listed.get("items") or [])

    async def _find(self, wanted: Callable[[ApiResource], bool]) -> ApiResource | None:
        for attempt in range(2):
            if attempt or not self._resources:
                self._resources = await server_resources(self.context.client, self.context.profile.discovery_group)
            found = next((r for r in self._resources if wanted(r)), None)
            if found is not None:
                return found
        return None


def _scoped(quota: Obj) -> bool:
    spec = quota.get("spec") or {}
    return bool(spec.get("scopes") or (spec.get("scopeSelector") or {}).get("matchExpressions"))
