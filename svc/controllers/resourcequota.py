"""The resourcequota controller: each ResourceQuota's `status.hard` and `status.used`.

Upstream `pkg/controller/resourcequota` with the evaluators of `pkg/quota/v1/evaluator/core`: the
key is a quota; it is queued when the quota appears or its spec or status changes, when a counted object in
its namespace appears, changes or goes, and every `sync_period` for a full recalculation. A sync
measures only what the quota limits: object counts (`pods`, `services`, `configmaps`, `secrets`,
`persistentvolumeclaims`, `replicationcontrollers`, `resourcequotas`, `count/<resource>[.<group>]`),
the requests and limits of any container resource of pods that still run (not terminal, not past
their deletion grace period), load-balancer and node-port services and claimed storage; then writes
the status subresource if it changed. Quota scopes (`scopes`, `scopeSelector`) are not applied.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from svc.client.aio import resource_path
from svc.client.discovery import ApiResource, server_resources
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, key_of
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.workers import run_workers
from svc.machinery.quantity import Quantity, QuantityError, parse_quantity

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
# Compute quota names meaning requests; `requests.<name>` and `limits.<name>` name any container
# resource (cpu, memory, hugepages, extended resources) except `requests.storage`, a claim's.
BARE_REQUESTS = ("cpu", "memory", "ephemeral-storage")


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
        used = {name: await self.usage(name, namespace) for name in hard}
        status = quota.get("status") or {}
        if status.get("hard") == hard and status.get("used") == used:
            return
        path = resource_path(
            "", "v1", "resourcequotas", namespace=namespace, name=quota["metadata"]["name"], subresource="status"
        )
        await self.context.client.update(path, {**quota, "status": {"hard": hard, "used": used}})

    async def usage(self, name: str, namespace: str) -> str:
        """What `namespace` uses of the quota resource `name`, in quantity text."""
        resource = name.removeprefix("count/")
        if resource in CACHED:
            return str(len(self._objects(resource, namespace)))
        kind, _, compute = name.partition(".")
        if name in BARE_REQUESTS:
            kind, compute = "requests", name
        if kind in ("requests", "limits") and compute and name != "requests.storage":
            return _total(pod_amount(pod, kind, compute) for pod in self._objects("pods", namespace))
        services = self._objects("services", namespace)
        if name == "services.loadbalancers":
            return str(sum(1 for s in services if (s.get("spec") or {}).get("type") == "LoadBalancer"))
        if name == "services.nodeports":
            node_port_types = ("NodePort", "LoadBalancer")
            return str(
                sum(
                    len(s["spec"].get("ports") or [])
                    for s in services
                    if (s.get("spec") or {}).get("type") in node_port_types
                )
            )
        if name == "requests.storage":
            claims = self._objects("persistentvolumeclaims", namespace)
            return _total(
                _parse((((c.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage"))
                for c in claims
            )
        if name.startswith("count/"):
            return str(await self._count(resource, namespace))
        return "0"

    def _objects(self, resource: str, namespace: str) -> list[Obj]:
        objects = self.counted[resource].by_index(NAMESPACE_INDEX, namespace)
        if resource == "pods":
            return [pod for pod in objects if counts_as_running(pod, self.context.clock.wall())]
        return objects

    async def _count(self, group_resource: str, namespace: str) -> int:
        """Objects of a resource no informer here caches, by listing it (`deployments.apps`)."""
        resource, _, group = group_resource.partition(".")
        served = self.context.profile.group(group)
        match = await self._find(
            lambda r: r.resource == resource and r.group == served and r.preferred and r.namespaced
        )
        if match is None:
            return 0
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


def counts_as_running(pod: Obj, now: float) -> bool:
    """Upstream's `QuotaV1Pod`: terminal pods and pods past deletion plus grace no longer count."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    metadata = pod.get("metadata") or {}
    deleted, grace = metadata.get("deletionTimestamp"), metadata.get("deletionGracePeriodSeconds")
    if deleted and grace is not None:
        deadline = datetime.fromisoformat(deleted.replace("Z", "+00:00")).timestamp() + grace
        return now <= deadline
    return True


def pod_amount(pod: Obj, kind: str, resource: str) -> Quantity | None:
    """A pod's effective request or limit: the larger of its containers' sum and any one init
    container's, plus its overhead (upstream's `PodRequests`/`PodLimits`)."""
    spec = pod.get("spec") or {}

    def amount(container: Obj) -> Quantity | None:
        return _parse(((container.get("resources") or {}).get(kind) or {}).get(resource))

    total = _sum(amount(c) for c in spec.get("containers") or [])
    for container in spec.get("initContainers") or []:
        init = amount(container)
        if init is not None and (total is None or init > total):
            total = init
    return _sum((total, _parse((spec.get("overhead") or {}).get(resource))))


def _parse(text: object) -> Quantity | None:
    if text is None:
        return None
    try:
        return parse_quantity(str(text))
    except QuantityError:
        return None


def _sum(amounts: Iterable[Quantity | None]) -> Quantity | None:
    present = [amount for amount in amounts if amount is not None]
    if not present:
        return None
    return Quantity(sum((amount.value for amount in present), Decimal(0)), present[0].format)


def _total(amounts: Iterable[Quantity | None]) -> str:
    summed = _sum(amounts)
    return summed.canonical() if summed is not None else "0"
