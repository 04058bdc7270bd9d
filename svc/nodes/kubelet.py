"""The simulated kubelet: brings the pods bound to the simulated nodes to Running, ends the ones
that run to completion, and finishes graceful deletions.

A pod becomes Running and Ready `ready_delay` seconds after the kubelet first sees it bound, with an
IP from its node's pod range. A pod being deleted has its containers killed at once (nothing runs here,
so its grace period is not waited out), is reported terminal, then deleted for good (grace period 0,
guarded by its uid), as a kubelet does once its containers stopped. Status writes carry the cached
resourceVersion; a conflict means a newer version is on its way through the watch, which brings the
pod back to the queue.
"""

from __future__ import annotations

import ipaddress
import logging
from collections import defaultdict
from datetime import datetime
from typing import Any

from svc.client.aio import ApiError, AsyncRestClient, resource_path
from svc.client.clock import Clock
from svc.client.informer import Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.nodes.pod_status import ended_status, killed_status, planned_exit_code, resized_status, running_status

log = logging.getLogger(__name__)
Obj = dict[str, Any]
NAME = "simulated-kubelet"
TERMINAL = ("Succeeded", "Failed")


class PodAddresses:
    """Pod IPs per node, from the node's pod CIDR (the first address is the node's gateway)."""

    def __init__(self, cidrs: dict[str, str]) -> None:
        self._cidrs = {node: ipaddress.ip_network(cidr) for node, cidr in cidrs.items()}
        self._used: defaultdict[str, set[str]] = defaultdict(set)
        self._held: dict[str, tuple[str, str]] = {}

    def hold(self, key: str, node: str, address: str) -> None:
        self._held[key] = (node, address)
        self._used[node].add(address)

    def assign(self, key: str, node: str) -> str:
        if key in self._held:
            return self._held[key][1]
        hosts = self._cidrs[node].hosts()
        next(hosts)
        for host in hosts:
            if str(host) not in self._used[node]:
                self.hold(key, node, str(host))
                return str(host)
        raise RuntimeError(f"node {node} has no pod address left")

    def release(self, key: str) -> None:
        held = self._held.pop(key, None)
        if held is not None:
            self._used[held[0]].discard(held[1])


def _started_at(pod: Obj) -> float | None:
    for container in (pod.get("status") or {}).get("containerStatuses") or []:
        started = ((container.get("state") or {}).get("running") or {}).get("startedAt")
        if started:
            return datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp()
    return None


class Kubelet:
    def __init__(
        self,
        client: AsyncRestClient,
        clock: Clock,
        pods: Informer,
        nodes: dict[str, Obj],
        *,
        ready_delay: float,
        run_time: float,
        reported: dict[str, Obj],
        workers: int = 16,
    ) -> None:
        """`reported` is filled with the last status written per pod: what this kubelet knows of its
        containers before the watch brings its own write back (the kubelet endpoint reads it)."""
        self.client = client
        self.clock = clock
        self.pods = pods
        self.nodes = nodes
        self.ready_delay = ready_delay
        self.run_time = run_time
        self.workers = workers
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=clock)
        self.addresses = PodAddresses({name: node["spec"]["podCIDR"] for name, node in nodes.items()})
        self._first_seen: dict[str, float] = {}
        self.reported = reported
        pods.add_handler(
            Handler(on_add=self._on_pod, on_update=lambda _old, new: self._on_pod(new), on_delete=self._gone)
        )

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    def _on_pod(self, pod: Obj) -> None:
        node = (pod.get("spec") or {}).get("nodeName")
        if node not in self.nodes:
            return
        key = key_of(pod)
        address = (pod.get("status") or {}).get("podIP")
        if address:
            self.addresses.hold(key, node, address)
        self.queue.add(key)

    def _gone(self, pod: Obj) -> None:
        key = key_of(pod)
        self.addresses.release(key)
        self._first_seen.pop(key, None)
        self.reported.pop(key, None)

    async def sync(self, key: str) -> None:
        pod = self.pods.get(key)
        if pod is None or (pod.get("spec") or {}).get("nodeName") not in self.nodes:
            return
        if pod["metadata"].get("deletionTimestamp"):
            await self._finish_deletion(pod)
            return
        status = pod.get("status") or {}
        if status.get("phase") in TERMINAL:
            return
        if status.get("phase") != "Running":
            await self._start(key, pod)
            return
        resized = resized_status(pod)
        if resized is not None:
            await self._write_status(pod, resized)
            return
        exit_code = planned_exit_code(pod)
        started = _started_at(pod)
        if exit_code is None or started is None:
            return
        remaining = started + self.run_time - self.clock.wall()
        if remaining > 0:
            self.queue.add_after(key, remaining)
            return
        ended = ended_status(pod, exit_code, self.clock.wall())
        if await self._write_status(pod, ended) and ended["phase"] == "Running":
            self.queue.add_after(key, self.run_time)

    async def _start(self, key: str, pod: Obj) -> None:
        now = self.clock.now()
        due = self._first_seen.setdefault(key, now) + self.ready_delay
        if now < due:
            self.queue.add_after(key, due - now)
            return
        node = self.nodes[pod["spec"]["nodeName"]]
        host = next(a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP")
        address = self.addresses.assign(key, node["metadata"]["name"])
        written = await self._write_status(pod, running_status(pod, host, address, self.clock.wall()))
        if written and planned_exit_code(pod) is not None:
            self.queue.add_after(key, self.run_time)

    async def _write_status(self, pod: Obj, status: Obj) -> bool:
        metadata = pod["metadata"]
        path = resource_path(
            "", "v1", "pods", namespace=metadata["namespace"], name=metadata["name"], subresource="status"
        )
        try:
            await self.client.update(path, {**pod, "status": status})
        except ApiError as error:
            if error.reason in ("NotFound", "Conflict"):
                return False
            raise
        self.reported[key_of(pod)] = status
        return True

    async def _finish_deletion(self, pod: Obj) -> None:
        """Kill the containers (at once, whatever the grace period: nothing runs here), report the pod
        terminal, then remove it, as the kubelet since 1.27; a lost status write waits for the newer pod."""
        metadata = pod["metadata"]
        running = (pod.get("status") or {}).get("phase") not in TERMINAL
        if running and not await self._write_status(pod, killed_status(pod, self.clock.wall())):
            return
        path = resource_path("", "v1", "pods", namespace=metadata["namespace"], name=metadata["name"])
        options = {"gracePeriodSeconds": 0, "preconditions": {"uid": metadata.get("uid", "")}}
        try:
            await self.client.delete(path, options)
        except ApiError as error:
            if error.reason not in ("NotFound", "Conflict"):
                raise
