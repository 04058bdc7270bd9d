"""The service-cidr controller: ServiceCIDRs are protected by a finalizer and report whether they are Ready.

Upstream `pkg/controller/servicecidrs`: every live ServiceCIDR gets the
`networking.k8s.io/service-cidr-finalizer` (profile spelling) and the condition Ready=True with the
message "Kubernetes Service CIDR is ready" (and no reason). A ServiceCIDR being deleted keeps its
finalizer while an allocated IPAddress would be left without any range (no other ServiceCIDR contains
it): its condition turns Ready=False, reason Terminating, saying so. Otherwise the finalizer goes once
the deletion has been visible for a grace period (10 s), so allocators see the range leave before it
does. The API server keeps the default ServiceCIDR (`svc/apiserver/default_service.py`) and, as
upstream's, repairs IPAddresses and node ports (`svc/apiserver/cluster_ip_repair.py`, `node_port_repair.py`).
"""

from __future__ import annotations

import datetime
import ipaddress
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.events import WARNING
from svc.client.informer import Handler, key_of
from svc.client.workers import RequeueAfter, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "service-cidr-controller"
GROUP = "networking.k8s.io"
DELETION_GRACE_PERIOD = 10.0
READY_MESSAGE = "Kubernetes Service CIDR is ready"
BLOCKED_MESSAGE = (
    "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR"
)
Obj = dict[str, Any]


def _networks(cidr: Obj) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    found = []
    for text in (cidr.get("spec") or {}).get("cidrs") or []:
        try:
            found.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            continue
    return found


def _timestamp(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(text: str | None) -> float:
    try:
        return datetime.datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


class ServiceCIDRController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        label = context.profile.label
        self.finalizer = f"{context.profile.group(GROUP)}/service-cidr-finalizer"
        self.family_label = label("ipaddress.kubernetes.io/ip-family")
        self.managed_by_label = label("ipaddress.kubernetes.io/managed-by")
        self.allocator = context.profile.group("ipallocator.k8s.io")
        self.events = context.recorder(NAME)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.cidrs = context.informers.informer(GROUP, "v1", "servicecidrs")
        self.addresses = context.informers.informer(GROUP, "v1", "ipaddresses")
        self.cidrs.add_handler(
            Handler(
                on_add=self._cidr_changed,
                on_update=lambda _old, new: self._cidr_changed(new),
                on_delete=self._cidr_changed,
            )
        )
        self.addresses.add_handler(Handler(on_delete=self._address_deleted))

    def _cidr_changed(self, cidr: Obj) -> None:
        """The ServiceCIDR and every one overlapping it: their deletion may hinge on each other."""
        self.queue.add(key_of(cidr))
        for network in _networks(cidr):
            for other in self.cidrs.list():
                if any(network.version == o.version and network.overlaps(o) for o in _networks(other)):
                    self.queue.add(key_of(other))

    def _address_deleted(self, address: Obj) -> None:
        for cidr in self._containing(address["metadata"]["name"]):
            self.queue.add(key_of(cidr))

    def _containing(self, ip_text: str) -> list[Obj]:
        try:
            ip = ipaddress.ip_address(ip_text)
        except ValueError:
            return []
        return [cidr for cidr in self.cidrs.list() if any(ip in network for network in _networks(cidr))]

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    def _path(self, name: str) -> str:
        return resource_path(self.context.profile.group(GROUP), "v1", "servicecidrs", name=name)

    async def sync(self, name: str) -> None:
        cidr = self.cidrs.get(name)
        if cidr is None:
            return
        finalizers = cidr["metadata"].get("finalizers") or []
        if cidr["metadata"].get("deletionTimestamp"):
            if self.finalizer not in finalizers:
                return
            if not self.can_delete(cidr):
                await self._set_ready(cidr, "False", "Terminating", BLOCKED_MESSAGE)
                return
            waited = self.context.clock.wall() - _parse_time(cidr["metadata"]["deletionTimestamp"])
            if waited < DELETION_GRACE_PERIOD:
                raise RequeueAfter(DELETION_GRACE_PERIOD - waited, "waiting for the deletion to reach the allocators")
            await self._patch(name, {"metadata": {"$deleteFromPrimitiveList/finalizers": [self.finalizer]}})
            return
        if self.finalizer not in finalizers:
            await self._patch(name, {"metadata": {"finalizers": [self.finalizer]}})
        try:
            await self._set_ready(cidr, "True", "", READY_MESSAGE)
        except ApiError:
            message = "The ServiceCIDR Status can not be set to Ready=True"
            await self.events.event(
                cidr,
                "ServiceCIDR",
                f"{self.context.profile.group(GROUP)}/v1",
                WARNING,
                "KubernetesServiceCIDRError",
                message,
            )
            raise

    def can_delete(self, cidr: Obj) -> bool:
        """Upstream's `canDeleteCIDR`: another ServiceCIDR contains this one's ranges, or no allocated
        IPAddress would be left outside every other range."""
        networks = _networks(cidr)
        others = [other for other in self.cidrs.list() if other["metadata"]["name"] != cidr["metadata"]["name"]]
        if networks and all(
            any(network.subnet_of(o) for other in others for o in _networks(other) if o.version == network.version)
            for network in networks
        ):
            return True
        for address in self.addresses.list():
            labels = address["metadata"].get("labels") or {}
            if labels.get(self.managed_by_label) != self.allocator:
                continue
            containing = self._containing(address["metadata"]["name"])
            if len(containing) == 1 and containing[0]["metadata"]["name"] == cidr["metadata"]["name"]:
                return False
        return True

    async def _set_ready(self, cidr: Obj, truth: str, reason: str, message: str) -> None:
        conditions = (cidr.get("status") or {}).get("conditions") or []
        current = next((c for c in conditions if c.get("type") == "Ready"), None)
        if current is not None and (current.get("status"), current.get("reason", ""), current.get("message")) == (
            truth,
            reason,
            message,
        ):
            return
        condition = {
            "type": "Ready",
            "status": truth,
            "lastTransitionTime": _timestamp(self.context.clock.wall()),
            "reason": reason,
            "message": message,
        }
        kept = [c for c in conditions if c.get("type") != "Ready"]
        path = self._path(cidr["metadata"]["name"]) + "/status"
        try:
            await self.context.client.patch(path, {"status": {"conditions": [*kept, condition]}})
        except ApiError as error:
            if error.reason != "NotFound":
                raise

    async def _patch(self, name: str, body: Obj) -> None:
        try:
            await self.context.client.patch(self._path(name), body, patch_type="strategic")
        except ApiError as error:
            if error.reason != "NotFound":
                raise
