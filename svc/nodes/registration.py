"""Registering the simulated nodes and keeping them alive: a Node each, and a Lease renewed every 10 s
(upstream's kubelet defaults: `nodeLeaseDurationSeconds` 40, renewed at a quarter of it)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from svc.api.brand import Profile
from svc.client.aio import ApiError, AsyncRestClient, resource_path
from svc.client.clock import Clock
from svc.nodes.node_objects import LEASE_DURATION_SECONDS, NodeShape, lease_object, micro_time, node_object

log = logging.getLogger(__name__)
Obj = dict[str, Any]
RENEW_INTERVAL = LEASE_DURATION_SECONDS / 4
CONFLICT_RETRIES = 5


class NodeRegistration:
    def __init__(self, client: AsyncRestClient, profile: Profile, clock: Clock, names: list[str], shape: NodeShape):
        self.client = client
        self.profile = profile
        self.clock = clock
        self.names = names
        self.shape = shape
        self._lease_group = profile.group("coordination.k8s.io")

    def _lease_path(self, name: str = "") -> str:
        return resource_path(self._lease_group, "v1", "leases", namespace=self.profile.node_lease_namespace, name=name)

    async def register(self) -> list[Obj]:
        """Create each node (or mark an existing one Ready again, as a restarted kubelet does) and its Lease."""
        return list(await asyncio.gather(*(self._register(index, name) for index, name in enumerate(self.names))))

    async def _register(self, index: int, name: str) -> Obj:
        wanted = node_object(name, index, self.shape, self.profile, self.clock.wall())
        try:
            node = await self.client.create(resource_path("", "v1", "nodes"), wanted)
        except ApiError as error:
            if error.reason != "AlreadyExists":
                raise
            node = await self.client.get(resource_path("", "v1", "nodes", name=name))
        attempts = 0
        while True:
            try:
                return await self._settle(node, wanted)
            except ApiError as error:
                # A controller (ttl, node lifecycle) may write the new node between our steps.
                attempts += 1
                if error.reason != "Conflict" or attempts >= CONFLICT_RETRIES:
                    raise
                node = await self.client.get(resource_path("", "v1", "nodes", name=name))

    async def _settle(self, node: Obj, wanted: Obj) -> Obj:
        name = node["metadata"]["name"]
        if node.get("status") != wanted["status"]:
            node = await self.client.update(
                resource_path("", "v1", "nodes", name=name, subresource="status"), {**node, "status": wanted["status"]}
            )
        node = await self._drop_not_ready_taint(node)
        await self._ensure_lease(node)
        return node

    async def _drop_not_ready_taint(self, node: Obj) -> Obj:
        """The API server's TaintNodesByCondition admission taints a new node `not-ready:NoSchedule`;
        upstream's node lifecycle controller lifts it once the node reports Ready. The simulated node is
        Ready from the start, so it lifts the taint itself: pods schedule whether or not a controller
        manager runs beside it (the controller, when it runs, comes to the same answer)."""
        not_ready = self.profile.label("node.kubernetes.io/not-ready")
        taints = (node.get("spec") or {}).get("taints") or []
        kept = [t for t in taints if not (t.get("key") == not_ready and t.get("effect") == "NoSchedule")]
        if len(kept) == len(taints):
            return node
        spec = {**node["spec"], "taints": kept} if kept else {k: v for k, v in node["spec"].items() if k != "taints"}
        return await self.client.update(
            resource_path("", "v1", "nodes", name=node["metadata"]["name"]), {**node, "spec": spec}
        )

    async def _ensure_lease(self, node: Obj) -> None:
        lease = lease_object(node, self.profile, self.clock.wall())
        try:
            await self.client.create(self._lease_path(), lease)
        except ApiError as error:
            if error.reason != "AlreadyExists":
                raise
            await self._renew(node["metadata"]["name"])

    async def _renew(self, name: str) -> None:
        current = await self.client.get(self._lease_path(name))
        current["spec"] = {
            **current.get("spec", {}),
            "holderIdentity": name,
            "renewTime": micro_time(self.clock.wall()),
        }
        await self.client.update(self._lease_path(name), current)

    async def keep_renewing(self) -> None:
        """Renew every Lease each interval; a failed renewal is logged and tried again next time."""
        while True:
            await self.clock.sleep(RENEW_INTERVAL)
            results = await asyncio.gather(*(self._renew(name) for name in self.names), return_exceptions=True)
            for name, result in zip(self.names, results, strict=True):
                if isinstance(result, Exception):
                    log.warning("renewing the lease of node %s failed: %s", name, result)
