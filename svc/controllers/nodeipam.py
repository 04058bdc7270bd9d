"""The node-ipam controller: each node gets pod CIDRs cut from `--cluster-cidr` (upstream's RangeAllocator).

Upstream `pkg/controller/nodeipam`: only with `--allocate-node-cidrs`; one or two cluster CIDRs (two
must be one IPv4 and one IPv6: dual-stack), each cut into subnets of the node mask size of its family
(`--node-cidr-mask-size`, or `-ipv4`/`-ipv6`, defaults 24 and 64). The `--service-cluster-ip-range`
inside a cluster CIDR is never handed out. A node without `spec.podCIDRs` gets one subnet per cluster
CIDR (`spec.podCIDR` is the first); a node that has them keeps them and they are marked taken; a
deleted node's subnets are released. A node that cannot be served gets upstream's node status event
(`CIDRNotAvailable`, `CIDRAssignmentFailed`) and is retried with backoff.
"""

from __future__ import annotations

import ipaddress
import logging
from dataclasses import dataclass
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.events import NORMAL
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.cidrset import CIDRSet, CIDRSetError, Network
from svc.controllers.context import ControllerContext

NAME = "node-ipam-controller"
COMPONENT = "cidrAllocator"
DEFAULT_MASK_IPV4 = 24
DEFAULT_MASK_IPV6 = 64
log = logging.getLogger(__name__)
Obj = dict[str, Any]


@dataclass(frozen=True)
class IPAMConfig:
    cluster_cidrs: tuple[Network, ...]
    service_cidrs: tuple[Network, ...]
    mask_sizes: tuple[int, ...]


def _cidrs(text: str, flag: str) -> tuple[Network, ...]:
    try:
        return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())
    except ValueError as error:
        raise ValueError(f"{flag}: {error}") from None


def _mask_sizes(clusters: tuple[Network, ...], mask: int, mask_v4: int, mask_v6: int) -> tuple[int, ...]:
    """Upstream's `setNodeCIDRMaskSizes`, with its refusals."""
    v4, v6 = DEFAULT_MASK_IPV4, DEFAULT_MASK_IPV6
    if len(clusters) > 1:
        if mask:
            raise ValueError("usage of --node-cidr-mask-size is not allowed with dual-stack clusters")
        v4, v6 = mask_v4 or v4, mask_v6 or v6
    elif mask:
        if mask_v4 or mask_v6:
            raise ValueError(
                "usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if "
                "--node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags"
            )
        v4 = v6 = mask
    else:
        single_v6 = clusters[0].version == 6
        if mask_v4:
            if single_v6:
                raise ValueError("usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster")
            v4 = mask_v4
        if mask_v6:
            if not single_v6:
                raise ValueError("usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster")
            v6 = mask_v6
    return tuple(v6 if cidr.version == 6 else v4 for cidr in clusters)


def configure(
    *, cluster_cidr: str, service_range: str, mask: int, mask_v4: int, mask_v6: int, allocator: str
) -> IPAMConfig:
    """The allocator's configuration from the flags; ValueError says why the controller cannot start."""
    if allocator != "RangeAllocator":
        if allocator == "CloudAllocator":
            raise ValueError("CloudAllocator is not supported: there is no cloud provider")
        raise ValueError(f"invalid CIDR allocator type: {allocator}")
    if not cluster_cidr.strip():
        raise ValueError("svc-controller-manager missing --cluster-cidr flag")
    clusters = _cidrs(cluster_cidr, "--cluster-cidr")
    if len(clusters) > 2:
        raise ValueError(f"len of clusters is:{len(clusters)} > more than max allowed of 2")
    if len(clusters) == 2 and clusters[0].version == clusters[1].version:
        raise ValueError(
            "len of ClusterCIDRs==2 and they are not configured as dual stack (at least one from each IPFamily"
        )
    sizes = _mask_sizes(clusters, mask, mask_v4, mask_v6)
    for cidr, size in zip(clusters, sizes, strict=True):
        CIDRSet(cidr, size)
    return IPAMConfig(clusters, _cidrs(service_range, "--service-cluster-ip-range"), sizes)


class NodeIPAMController:
    def __init__(self, context: ControllerContext, config: IPAMConfig) -> None:
        self.context = context
        self.sets = [CIDRSet(cidr, size) for cidr, size in zip(config.cluster_cidrs, config.mask_sizes, strict=True)]
        for service in config.service_cidrs:
            for cidr_set in self.sets:
                if cidr_set.cluster.version == service.version and cidr_set.cluster.overlaps(service):
                    cidr_set.occupy(service)
        self.events = context.recorder(COMPONENT)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.nodes = context.informers.informer("", "v1", "nodes")
        self.assigned: dict[str, list[str]] = {}
        self.nodes.add_handler(
            Handler(on_add=self._seen, on_update=lambda _old, node: self._seen(node), on_delete=self._deleted)
        )

    def _seen(self, node: Obj) -> None:
        name = node["metadata"]["name"]
        cidrs = (node.get("spec") or {}).get("podCIDRs") or []
        if cidrs:
            self.assigned.pop(name, None)
            self._occupy(name, cidrs)
        else:
            self.queue.add(name)

    def _occupy(self, name: str, cidrs: list[str]) -> None:
        for cidr_set, text in zip(self.sets, cidrs, strict=False):
            try:
                cidr_set.occupy(ipaddress.ip_network(text, strict=False))
            except (CIDRSetError, ValueError) as error:
                log.warning("%s: failed to mark cidr %s of node %s as occupied: %s", NAME, text, name, error)

    def _deleted(self, node: Obj) -> None:
        name = node["metadata"]["name"]
        for cidr_set, text in zip(
            self.sets, (node.get("spec") or {}).get("podCIDRs") or self.assigned.pop(name, []), strict=False
        ):
            try:
                cidr_set.release(ipaddress.ip_network(text, strict=False))
            except (CIDRSetError, ValueError) as error:
                log.warning("%s: failed to release cidr %s of node %s: %s", NAME, text, name, error)

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=1, name=NAME)

    async def sync(self, name: str) -> None:
        node = self.nodes.get(name)
        if node is None or (node.get("spec") or {}).get("podCIDRs") or name in self.assigned:
            return
        allocated: list[tuple[CIDRSet, Network]] = []
        for index, cidr_set in enumerate(self.sets):
            try:
                allocated.append((cidr_set, cidr_set.allocate_next()))
            except CIDRSetError as error:
                self._release(allocated)
                await self._status_event(node, "CIDRNotAvailable")
                raise RuntimeError(f"failed to allocate cidr from cluster cidr at idx:{index}: {error}") from None
        cidrs = [str(cidr) for _, cidr in allocated]
        patch = {"metadata": {"uid": node["metadata"].get("uid")}, "spec": {"podCIDR": cidrs[0], "podCIDRs": cidrs}}
        try:
            await self.context.client.patch(resource_path("", "v1", "nodes", name=name), patch, patch_type="strategic")
        except ApiError as error:
            self._release(allocated)
            if error.reason in ("NotFound", "Conflict"):
                return
            await self._status_event(node, "CIDRAssignmentFailed")
            raise
        self.assigned[name] = cidrs
        log.info("%s: set node %s podCIDRs to %s", NAME, name, cidrs)

    @staticmethod
    def _release(allocated: list[tuple[CIDRSet, Network]]) -> None:
        for cidr_set, cidr in allocated:
            cidr_set.release(cidr)

    async def _status_event(self, node: Obj, status: str) -> None:
        """Upstream's `RecordNodeStatusChange`."""
        message = f"Node {node['metadata']['name']} status is now: {status}"
        await self.events.event(node, "Node", "", NORMAL, status, message)
