"""The scheduling loop: pending pods are placed by `scheduler.place` and bound one at a time.

Node usage is kept from the pod cache as pods come, change and go. As in upstream's scheduler, the
placement of one pod after another is serial, and each placement is counted at once ("assumed") so
the next pod sees it; the binding request then runs in the background while the next pod is placed
(a write costs a disk sync, so serial bindings would cap scheduling at a few dozen pods a second). A
binding that fails is un-assumed and the pod placed again. Pods that
fit nowhere get `PodScheduled=False` (reason `Unschedulable`, upstream's message shape) and are
tried again whenever a node changes or a pod goes away.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from decimal import Decimal
from typing import Any

from svc.client.aio import ApiError, AsyncRestClient, resource_path
from svc.client.clock import Clock
from svc.client.informer import Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.nodes.node_objects import rfc3339
from svc.nodes.scheduler import SCHEDULER_NAME, NodeUsage, place, pod_requests

log = logging.getLogger(__name__)
Obj = dict[str, Any]
NAME = "simulated-scheduler"
TERMINAL = ("Succeeded", "Failed")


def needs_scheduling(pod: Obj) -> bool:
    spec = pod.get("spec") or {}
    return (
        not spec.get("nodeName")
        and (spec.get("schedulerName") or SCHEDULER_NAME) == SCHEDULER_NAME
        and not pod["metadata"].get("deletionTimestamp")
        and (pod.get("status") or {}).get("phase") not in TERMINAL
    )


class SchedulingLoop:
    def __init__(self, client: AsyncRestClient, clock: Clock, pods: Informer, nodes: Informer) -> None:
        self.client = client
        self.clock = clock
        self.pods = pods
        self.nodes = nodes
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=clock)
        self.usage: defaultdict[str, NodeUsage] = defaultdict(NodeUsage)
        self._placed: dict[str, tuple[str, dict[str, Decimal]]] = {}
        self._unschedulable: set[str] = set()
        self._binding: set[asyncio.Task[None]] = set()
        pods.add_handler(
            Handler(on_add=self._on_pod, on_update=lambda _old, new: self._on_pod(new), on_delete=self._gone)
        )
        retry = lambda *_: self._retry_unschedulable()  # noqa: E731
        nodes.add_handler(Handler(on_add=retry, on_update=retry, on_delete=retry))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=1, name=NAME)

    def _account(self, key: str, pod: Obj | None) -> None:
        """Count the pod's requests on its node, replacing what was counted for it before."""
        old = self._placed.pop(key, None)
        if old is not None:
            self.usage[old[0]].add(old[1], -1)
        if pod is None:
            return
        node = (pod.get("spec") or {}).get("nodeName")
        if node and (pod.get("status") or {}).get("phase") not in TERMINAL:
            requests = pod_requests(pod)
            self._placed[key] = (node, requests)
            self.usage[node].add(requests)

    def _on_pod(self, pod: Obj) -> None:
        key = key_of(pod)
        self._account(key, pod)
        if needs_scheduling(pod):
            self.queue.add(key)
        elif key in self._unschedulable:
            self._unschedulable.discard(key)

    def _gone(self, pod: Obj) -> None:
        key = key_of(pod)
        self._account(key, None)
        self._unschedulable.discard(key)
        self._retry_unschedulable()

    def _retry_unschedulable(self) -> None:
        for key in self._unschedulable:
            self.queue.add(key)

    async def sync(self, key: str) -> None:
        pod = self.pods.get(key)
        if pod is None or not needs_scheduling(pod) or key in self._placed:
            return
        placement = place(pod, self.nodes.list(), self.usage)
        if not placement.node:
            self._unschedulable.add(key)
            await self._report_unschedulable(pod, placement.message)
            return
        self._unschedulable.discard(key)
        self._account(key, {**pod, "spec": {**pod["spec"], "nodeName": placement.node}})
        task = asyncio.create_task(self._bind(key, pod, placement.node))
        self._binding.add(task)
        task.add_done_callback(self._binding.discard)

    async def _bind(self, key: str, pod: Obj, node: str) -> None:
        namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name, "namespace": namespace, "uid": pod["metadata"].get("uid", "")},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        }
        path = resource_path("", "v1", "pods", namespace=namespace, name=name, subresource="binding")
        try:
            await self.client.create(path, binding)
        except (ApiError, OSError) as error:
            if isinstance(error, ApiError) and error.reason in ("NotFound", "Conflict"):
                return  # gone, or bound by someone else: the watch brings the news
            log.warning("binding pod %s to %s failed: %s", key, node, error)
            self._forget(key)

    def _forget(self, key: str) -> None:
        """Undo an assumption whose binding failed, and place the pod again later."""
        self._account(key, None)
        self.queue.add_rate_limited(key)

    async def _report_unschedulable(self, pod: Obj, message: str) -> None:
        status = pod.get("status") or {}
        conditions = status.get("conditions") or []
        current = next((c for c in conditions if c.get("type") == "PodScheduled"), None)
        if current is not None and current.get("message") == message and current.get("status") == "False":
            return
        condition = {
            "type": "PodScheduled",
            "status": "False",
            "lastProbeTime": None,
            "lastTransitionTime": rfc3339(self.clock.wall()),
            "reason": "Unschedulable",
            "message": message,
        }
        kept = [c for c in conditions if c.get("type") != "PodScheduled"]
        namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        path = resource_path("", "v1", "pods", namespace=namespace, name=name, subresource="status")
        try:
            await self.client.update(
                path, {**pod, "status": {**status, "phase": "Pending", "conditions": [*kept, condition]}}
            )
        except ApiError as error:
            if error.reason not in ("NotFound", "Conflict"):
                raise
