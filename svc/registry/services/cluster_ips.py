"""Cluster IPs, allocated as upstream 1.36 does: one IPAddress object (networking/v1) per IP in use.

Creating the IPAddress named after the IP is the allocation: storage lets only one create of a name
succeed, so two API servers cannot hand out the same IP, and the allocations are there after a restart.
A random IP comes from the upper part of the range first, leaving the lower part (the first
min(max(16, size/16), 256) addresses) for IPs that clients ask for by value, as upstream's allocator does.
The network and broadcast addresses of an IPv4 range are never handed out.
"""

from __future__ import annotations

import ipaddress
import random
from typing import Any

from svc.api.brand import Profile
from svc.machinery import status
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import DeleteOptions, ListOptions, WriteOptions
from svc.registry.services.ranges import Network
from svc.registry.store import GenericStore

Obj = dict[str, Any]
_RANDOM_TRIES = 32
_DELETE = DeleteOptions()


class AllocationError(Exception):
    """Why a value could not be allocated, in upstream's words (the caller adds the field path)."""


def _usable(network: Network) -> tuple[int, int]:
    """First and last usable address, as integers."""
    first, last = int(network.network_address), int(network.broadcast_address)
    if network.version == 4:
        return first + 1, last - 1
    return first + 1, last


class ClusterIPs:
    def __init__(self, cidrs: tuple[Network, ...], addresses: GenericStore, profile: Profile, user: UserInfo) -> None:
        self.cidrs = cidrs
        self._addresses = addresses
        self._user = user
        self.family_label = profile.label("ipaddress.kubernetes.io/ip-family")
        self.managed_by_label = profile.label("ipaddress.kubernetes.io/managed-by")
        self.allocator = profile.group("ipallocator.k8s.io")

    def cidr_for(self, family: str) -> Network | None:
        version = 4 if family == "IPv4" else 6
        return next((network for network in self.cidrs if network.version == version), None)

    def first(self, family: str) -> str:
        """The range's first usable IP: the default service's."""
        network = self.cidr_for(family)
        assert network is not None
        return str(ipaddress.ip_address(_usable(network)[0]))

    def address(self, ip: str, family: str, owner: Obj) -> Obj:
        """The IPAddress that holds `ip` for the Service `owner`, labelled as the allocator's."""
        metadata = owner.get("metadata") or {}
        labels = {self.family_label: family, self.managed_by_label: self.allocator}
        parent = {
            "group": "",
            "resource": "services",
            "namespace": metadata.get("namespace", ""),
            "name": metadata.get("name", ""),
        }
        return {
            "apiVersion": self._addresses.resource.api_version,
            "kind": "IPAddress",
            "metadata": {"name": ip, "labels": labels},
            "spec": {"parentRef": parent},
        }

    async def _claim(self, ip: str, family: str, owner: Obj, *, dry_run: bool) -> bool:
        """Whether `ip` was free (and is now held, unless a dry run)."""
        if dry_run:
            try:
                await self._addresses.get("", ip)
            except status.StatusError as error:
                if error.code == 404:
                    return True
                raise
            return False
        try:
            await self._addresses.create(
                "", self.address(ip, family, owner), admission=NoAdmission(), user=self._user, options=WriteOptions()
            )
        except status.StatusError as error:
            if error.reason == "AlreadyExists":
                return False
            raise
        return True

    async def allocate(self, family: str, requested: str, owner: Obj, *, dry_run: bool) -> str:
        network = self.cidr_for(family)
        if network is None:
            raise AllocationError(f"no service IP range of family {family} is configured")
        if requested:
            return await self._allocate_requested(network, family, requested, owner, dry_run=dry_run)
        first, last = _usable(network)
        size = last - first + 1
        reserved = min(max(16, size // 16), 256) if size > 32 else 0
        dynamic = (first + reserved, last) if reserved < size else (first, last)
        for _ in range(_RANDOM_TRIES):
            ip = str(ipaddress.ip_address(random.randint(*dynamic)))
            if await self._claim(ip, family, owner, dry_run=dry_run):
                return ip
        taken = {item["metadata"]["name"] for item in (await self._addresses.list("", ListOptions()))["items"]}
        for low, high in (dynamic, (first, dynamic[0] - 1)):
            for value in range(low, high + 1):
                ip = str(ipaddress.ip_address(value))
                if ip not in taken and await self._claim(ip, family, owner, dry_run=dry_run):
                    return ip
        raise AllocationError("range is full")

    async def _allocate_requested(
        self, network: Network, family: str, requested: str, owner: Obj, *, dry_run: bool
    ) -> str:
        try:
            ip = ipaddress.ip_address(requested)
        except ValueError:
            raise AllocationError(f"failed to allocate IP {requested}: not a valid IP address") from None
        first, last = _usable(network)
        if ip.version != network.version or not first <= int(ip) <= last:
            raise AllocationError(
                f"failed to allocate IP {requested}: the provided IP ({requested}) is not in the valid range. "
                f"The range of valid IPs is {network}"
            )
        if not await self._claim(str(ip), family, owner, dry_run=dry_run):
            raise AllocationError(f"failed to allocate IP {requested}: provided IP is already allocated")
        return str(ip)

    async def release(self, ip: str) -> None:
        if not ip or ip == "None":
            return
        try:
            await self._addresses.delete("", ip, _DELETE, admission=NoAdmission(), user=self._user)
        except status.StatusError as error:
            if error.code != 404:
                raise
