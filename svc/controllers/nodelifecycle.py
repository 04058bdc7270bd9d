"""The node-lifecycle controller: nodes that stop renewing their Lease become Unknown and tainted.

Upstream `pkg/controller/nodelifecycle`. Every `--node-monitor-period` each node's health is probed:
a renewed Lease or a new Ready heartbeat counts as a sign of life, timed by this controller's clock.
A node silent for `--node-monitor-grace-period` (`--node-startup-grace-period` before it ever
posted Ready) has its Ready and pressure conditions set Unknown with upstream's reasons, and its
pods marked not ready. The next pass queues it for the NoExecute taint of its Ready state
(`unreachable` or `not-ready`), applied per zone at `--node-eviction-rate`; a zone mostly down slows
to `--secondary-node-eviction-rate` (none in small clusters), and when every zone is down nothing is
tainted and existing NoExecute taints are lifted, since the fault is likely the control plane's.
The condition-derived NoSchedule taints follow every node change. Each node gets upstream's Normal
events (source `node-controller`): `RegisteredNode` the first pass that sees it, `RemovingNode` the
first that misses it, and `NodeNotReady` when a pass finds it no longer Ready.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from svc.client.aio import ApiError, resource_path
from svc.client.events import NORMAL
from svc.client.informer import Handler
from svc.client.workers import every, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import node_health as rules
from svc.controllers.context import ControllerContext
from svc.controllers.deployment_math import condition, rfc3339

NAME = "node-lifecycle-controller"
COMPONENT = "node-controller"
TAINT_PASS_PERIOD = 0.1
log = logging.getLogger(__name__)

Obj = rules.Obj


@dataclass
class NodeHealth:
    probe: float
    has_ready: bool = False
    heartbeat: object = None
    renew: float | None = None


@dataclass
class ZoneTainter:
    """A zone's NoExecute queue behind a token bucket of burst 1; a node stays known after it is
    processed, so it is not queued again until it becomes reachable."""

    rate: float
    last: float
    tokens: float = 1.0
    queue: list[str] = field(default_factory=list)
    known: set[str] = field(default_factory=set)

    def add(self, name: str) -> None:
        if name not in self.known:
            self.known.add(name)
            self.queue.append(name)

    def remove(self, name: str) -> None:
        self.known.discard(name)
        if name in self.queue:
            self.queue.remove(name)

    def set_rate(self, rate: float, now: float) -> None:
        self.rate, self.last, self.tokens = rate, now, min(self.tokens, 1.0) if rate > 0 else 0.0

    def try_accept(self, now: float) -> bool:
        if self.rate <= 0:
            return False
        self.tokens = min(1.0, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class NodeLifecycleController:
    def __init__(
        self,
        context: ControllerContext,
        *,
        monitor_period: float = 5.0,
        grace_period: float = 50.0,
        startup_grace_period: float = 60.0,
        eviction_rate: float = 0.1,
        secondary_eviction_rate: float = 0.01,
        large_cluster_threshold: int = 50,
        unhealthy_zone_threshold: float = 0.55,
    ) -> None:
        self.context = context
        self.monitor_period = monitor_period
        self.grace_period = grace_period
        self.startup_grace_period = startup_grace_period
        self.eviction_rate = eviction_rate
        self.secondary_eviction_rate = secondary_eviction_rate
        self.large_cluster_threshold = large_cluster_threshold
        self.unhealthy_zone_threshold = unhealthy_zone_threshold
        self.lease_namespace = context.profile.node_lease_namespace
        self.events = context.recorder(COMPONENT)
        self.nodes = context.informers.informer("", "v1", "nodes")
        self.leases = context.informers.informer("coordination.k8s.io", "v1", "leases")
        self.pods = context.informers.informer("", "v1", "pods")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.nodes.add_handler(
            Handler(
                on_add=lambda node: self.queue.add(node["metadata"]["name"]),
                on_update=lambda _old, node: self.queue.add(node["metadata"]["name"]),
            )
        )
        self.health: dict[str, NodeHealth] = {}
        self.known: dict[str, str] = {}
        self.tainters: dict[str, ZoneTainter] = {}
        self.zone_states: dict[str, str] = {}

    async def run(self) -> None:
        await asyncio.gather(
            run_workers(self.queue, self.sync_no_schedule, workers=8, name=NAME),
            every(self.context.clock, self.monitor_period, self.monitor),
            every(self.context.clock, TAINT_PASS_PERIOD, self.taint_pass),
        )

    # -- NoSchedule taints from conditions ----------------------------------------------------
    async def sync_no_schedule(self, name: str) -> None:
        node = self.nodes.get(name)
        if node is None:
            return
        taints = rules.reconcile_no_schedule(node)
        if taints is not None:
            await self._write_taints(node, taints)

    # -- health ---------------------------------------------------------------------------------
    async def monitor(self) -> None:
        """One pass over every node: health, NoExecute tainting, then the zones' disruption states."""
        nodes = self.nodes.list()
        await self._classify(nodes)
        zone_statuses: dict[str, list[str | None]] = {}
        for node in nodes:
            zone = rules.zone_of(node)
            self._tainter(zone)
            try:
                observed, current = await self._update_health(node)
                if current is None:
                    continue
                if rules.EXCLUDE_DISRUPTION not in (node["metadata"].get("labels") or {}):
                    zone_statuses.setdefault(zone, []).append(current)
                await self._taint_for(node, observed)
                if current != "True" and observed == "True":
                    name = node["metadata"]["name"]
                    await self._event(node["metadata"], "NodeNotReady", f"Node {name} status is now: NodeNotReady")
                    await self._mark_pods_not_ready(name)
            except (ApiError, OSError) as error:
                log.warning("%s: node %s: %s", NAME, node["metadata"]["name"], error)
        await self._handle_disruption(zone_statuses, nodes)

    async def _classify(self, nodes: list[Obj]) -> None:
        """Upstream's `classifyNodes`: nodes new to this controller are registered, nodes gone removed."""
        present = {node["metadata"]["name"]: node["metadata"] for node in nodes}
        for name in set(self.known) - set(present):
            self.health.pop(name, None)
            metadata = {"name": name, "uid": self.known.pop(name)}
            await self._event(metadata, "RemovingNode", f"Node {name} event: Removing Node {name} from Controller")
        for name, metadata in present.items():
            if name not in self.known:
                self.known[name] = metadata.get("uid", "")
                await self._event(
                    metadata, "RegisteredNode", f"Node {name} event: Registered Node {name} in Controller"
                )

    async def _event(self, metadata: Obj, reason: str, message: str) -> None:
        ref = {"metadata": {"name": metadata.get("name"), "uid": metadata.get("uid")}}
        await self.events.event(ref, "Node", "v1", NORMAL, reason, message)

    async def _update_health(self, node: Obj) -> tuple[str, str | None]:
        """The Ready status seen before this pass and after it, marking the node Unknown when overdue."""
        name = node["metadata"]["name"]
        now, wall = self.context.clock.now(), self.context.clock.wall()
        ready = condition(node.get("status") or {}, "Ready")
        health = self.health.get(name)
        if ready is None:
            grace = self.startup_grace_period
            if health is None:
                age = max(0.0, wall - rules.parse_time(node["metadata"].get("creationTimestamp") or rfc3339(wall)))
                health = NodeHealth(probe=now - age)
        else:
            grace = self.grace_period
            if health is None or not health.has_ready or health.heartbeat != ready.get("lastHeartbeatTime"):
                health = NodeHealth(probe=now, renew=health.renew if health else None)
        health.has_ready = ready is not None
        health.heartbeat = ready.get("lastHeartbeatTime") if ready else None
        lease = self.leases.get(f"{self.lease_namespace}/{name}")
        renew_time = ((lease or {}).get("spec") or {}).get("renewTime")
        if renew_time:
            renew = rules.parse_time(renew_time)
            if health.renew is None or health.renew < renew:
                health.renew, health.probe = renew, now
        self.health[name] = health
        observed = ready.get("status", "Unknown") if ready else "Unknown"
        current = ready.get("status") if ready else None
        if now > health.probe + grace:
            updated = rules.mark_unknown(node, wall)
            if condition(updated["status"], "Ready") != ready:
                await self.context.client.update(
                    resource_path("", "v1", "nodes", name=name, subresource="status"), updated
                )
                current = "Unknown"
        return observed, current

    async def _mark_pods_not_ready(self, node_name: str) -> None:
        for pod in self.pods.list():
            if (pod.get("spec") or {}).get("nodeName") != node_name:
                continue
            status = dict(pod.get("status") or {})
            conditions = [dict(c) for c in status.get("conditions") or []]
            ready = next((c for c in conditions if c.get("type") == "Ready"), None)
            if ready is None or ready.get("status") == "False":
                continue
            ready.update(status="False", lastTransitionTime=rfc3339(self.context.clock.wall()))
            metadata = pod["metadata"]
            path = resource_path(
                "", "v1", "pods", namespace=metadata["namespace"], name=metadata["name"], subresource="status"
            )
            try:
                await self.context.client.update(path, {**pod, "status": {**status, "conditions": conditions}})
            except ApiError as error:
                if error.reason != "NotFound":
                    raise

    # -- NoExecute taints -------------------------------------------------------------------------
    def _tainter(self, zone: str) -> ZoneTainter:
        if zone not in self.tainters:
            self.tainters[zone] = ZoneTainter(rate=self.eviction_rate, last=self.context.clock.now())
            self.zone_states[zone] = rules.INITIAL
        return self.tainters[zone]

    async def _taint_for(self, node: Obj, observed: str) -> None:
        name, tainter = node["metadata"]["name"], self._tainter(rules.zone_of(node))
        if observed == "False":
            if rules.has_taint(node, rules.UNREACHABLE):
                await self._swap(node, rules.NOT_READY, [rules.UNREACHABLE])
            else:
                tainter.add(name)
        elif observed == "Unknown":
            if rules.has_taint(node, rules.NOT_READY):
                await self._swap(node, rules.UNREACHABLE, [rules.NOT_READY])
            else:
                tainter.add(name)
        elif observed == "True":
            await self._mark_reachable(node)

    async def _mark_reachable(self, node: Obj) -> None:
        self._tainter(rules.zone_of(node)).remove(node["metadata"]["name"])
        await self._swap(node, None, [rules.UNREACHABLE, rules.NOT_READY])

    async def taint_pass(self) -> None:
        """Apply the queued NoExecute taints each zone's rate allows."""
        now = self.context.clock.now()
        for tainter in self.tainters.values():
            while tainter.queue and tainter.try_accept(now):
                name = tainter.queue.pop(0)
                node = self.nodes.get(name)
                status = rules.ready_status(node) if node else None
                if node is None or status not in ("False", "Unknown"):
                    continue
                add, remove = (
                    (rules.NOT_READY, rules.UNREACHABLE) if status == "False" else (rules.UNREACHABLE, rules.NOT_READY)
                )
                try:
                    await self._swap(node, add, [remove])
                except (ApiError, OSError) as error:
                    log.warning("%s: tainting node %s: %s", NAME, name, error)
                    tainter.queue.append(name)

    async def _swap(self, node: Obj, add: Obj | None, remove: list[Obj]) -> None:
        taints = rules.swap_taints(node, add, remove, self.context.clock.wall())
        if taints is not None:
            await self._write_taints(node, taints)

    async def _write_taints(self, node: Obj, taints: list[Obj]) -> None:
        path = resource_path("", "v1", "nodes", name=node["metadata"]["name"])
        try:
            await self.context.client.update(path, {**node, "spec": {**(node.get("spec") or {}), "taints": taints}})
        except ApiError as error:
            if error.reason != "NotFound":
                raise

    # -- zones ----------------------------------------------------------------------------------
    async def _handle_disruption(self, zone_statuses: dict[str, list[str | None]], nodes: list[Obj]) -> None:
        new_states = {
            zone: rules.zone_state(statuses, self.unhealthy_zone_threshold) for zone, statuses in zone_statuses.items()
        }
        for zone in new_states:
            self.zone_states.setdefault(zone, rules.INITIAL)
        all_are = all(state == rules.FULL_DISRUPTION for state in new_states.values())
        for zone in [zone for zone in self.zone_states if zone not in new_states]:
            del self.zone_states[zone]
        all_were = all(state == rules.FULL_DISRUPTION for state in self.zone_states.values())
        if all_are and all_were:
            return
        now = self.context.clock.now()
        if all_are:
            log.info("Controller detected that all Nodes are not-Ready. Entering master disruption mode")
            for node in nodes:
                await self._mark_reachable(node)
            for zone in self.zone_states:
                self.tainters[zone].set_rate(0.0, now)
                self.zone_states[zone] = rules.FULL_DISRUPTION
            return
        if all_were:
            log.info("Controller detected that some Nodes are Ready. Exiting master disruption mode")
            for health in self.health.values():
                health.probe = now
        for zone, state in list(self.zone_states.items()):
            if state != new_states[zone] or all_were:
                self.tainters[zone].set_rate(self._rate(new_states[zone], len(zone_statuses[zone])), now)
                self.zone_states[zone] = new_states[zone]

    def _rate(self, state: str, zone_size: int) -> float:
        if state == rules.PARTIAL_DISRUPTION:
            return self.secondary_eviction_rate if zone_size > self.large_cluster_threshold else 0.0
        return self.eviction_rate
