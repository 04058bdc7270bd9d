"""The cluster IP repair loop of the API server (upstream's `RepairIPAddress`, MultiCIDRServiceAllocator GA).

Every Service's ClusterIPs must each have the IPAddress named after it pointing back at the Service,
and every IPAddress the allocator made must belong to a Service that holds its IP. Services and
IPAddresses are followed from the server's own stores (watch caches) and their keys queued on every
change; a key is also queued for all objects every interval (an informer's resync), and the first
pass goes through everything once the default ServiceCIDR exists. What is repaired, and the Events
about it, are upstream's:

- a ClusterIP in no ServiceCIDR: `ClusterIPOutOfRange` on the Service, nothing repaired;
- a ClusterIP without IPAddress: `ClusterIPNotAllocated` on the Service, the IPAddress created;
- an IPAddress referring to something else, or to a Service that is gone: `ClusterIPNotAllocated`
  ("has a wrong reference"), the IPAddress recreated for this Service;
- an IPAddress of another Service that holds the same IP: `ClusterIPAlreadyAllocated`, left alone;
- an allocator's IPAddress that refers to no Service: `IPAddressNotAllocated` on it, deleted;
  to a Service that is gone: deleted once a minute old (a Service's IP is allocated before the
  Service is stored), `IPAddressNotAllocated`; to a Service not holding its IP: `IPAddressWrongReference`,
  deleted. IPAddresses without the allocator's managed-by label are never touched.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import logging
from typing import TYPE_CHECKING, Any

from svc.apiserver.authz.follow import Followers
from svc.apiserver.repair_events import RepairEvents
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.machinery import status, wallclock
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import DeleteOptions, WriteOptions
from svc.storage import errors

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)
Obj = dict[str, Any]
NAME = "ipallocator-repair-controller"
LEAK_GRACE = 60.0  # the API server's default request timeout: a Service being created is stored by then
WORKERS = 5
_ALLOCATION = "ClusterIPAllocation"
_IP_ALLOCATION = "IPAddressAllocation"


def _family(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    return "IPv4" if ip.version == 4 else "IPv6"


def _created(obj: Obj) -> float:
    text = str((obj.get("metadata") or {}).get("creationTimestamp") or "")
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _service_key(obj: Obj) -> str:
    metadata = obj.get("metadata") or {}
    return f"{metadata.get('namespace', '')}/{metadata.get('name', '')}"


def _holds_ip(service: Obj | None) -> bool:
    """Upstream's `IsServiceIPSet`: a ClusterIP that is neither empty nor None (headless)."""
    spec = (service or {}).get("spec") or {}
    return spec.get("clusterIP") not in (None, "", "None")


class ClusterIPRepair:
    def __init__(self, server: Server, *, interval: float) -> None:
        self.interval = interval
        self.default_cidr = server.profile.default_service
        self.services_store = server.store_for("", "services")
        self.addresses_store = server.store_for("networking.k8s.io", "ipaddresses")
        self.cidrs_store = server.store_for("networking.k8s.io", "servicecidrs")
        assert server.service_allocation is not None
        self.cluster_ips = server.service_allocation.cluster_ips
        self.events = RepairEvents(server, NAME)
        self.user = UserInfo(server.profile.apiserver_name, groups=("system:masters",))
        self.services: dict[str, Obj] = {}
        self.addresses: dict[str, Obj] = {}
        self.cidrs: dict[str, Obj] = {}
        clock = wallclock.ServerClock()
        self.service_queue: RateLimitingQueue[str] = RateLimitingQueue(clock=clock)
        self.address_queue: RateLimitingQueue[str] = RateLimitingQueue(clock=clock)
        self.first_pass_done = False
        self._followers = Followers()
        self._default_cidr_seen = asyncio.Event()

    # -- the followed stores (the Index protocol of svc/apiserver/authz/follow.py) -------------
    def _objects(self, resource: str) -> tuple[dict[str, Obj], RateLimitingQueue[str] | None]:
        if resource == "services":
            return self.services, self.service_queue
        if resource == "ipaddresses":
            return self.addresses, self.address_queue
        return self.cidrs, None

    def _key(self, resource: str, obj: Obj) -> str:
        return _service_key(obj) if resource == "services" else (obj.get("metadata") or {}).get("name", "")

    def reset(self, resource: str, objs: list[Obj]) -> None:
        known, queue = self._objects(resource)
        before = set(known)
        known.clear()
        known.update((self._key(resource, obj), obj) for obj in objs)
        self._note_default_cidr()
        if queue is not None and self.first_pass_done:  # a relist; the first pass covers the first list
            for key in before | set(known):
                queue.add(key)

    def put(self, resource: str, obj: Obj) -> None:
        known, queue = self._objects(resource)
        key = self._key(resource, obj)
        known[key] = obj
        self._note_default_cidr()
        if queue is not None:
            queue.add(key)

    def remove(self, resource: str, obj: Obj) -> None:
        known, queue = self._objects(resource)
        key = self._key(resource, obj)
        known.pop(key, None)
        if queue is not None:
            queue.add(key)

    def _note_default_cidr(self) -> None:
        if self.default_cidr in self.cidrs:
            self._default_cidr_seen.set()

    # -- running ---------------------------------------------------------------------------------
    async def run(self) -> None:
        """Follow the stores, repair everything once, then work from the queues until cancelled."""
        await self._followers.add(self, self.services_store, self.addresses_store, self.cidrs_store)
        try:
            await self._default_cidr_seen.wait()
            await self._first_pass()
            await asyncio.gather(
                run_workers(self.service_queue, self.sync_service, workers=WORKERS, name=NAME),
                run_workers(self.address_queue, self.sync_address, workers=WORKERS, name=NAME),
                self._resync(),
            )
        finally:
            await self._followers.stop()

    async def _first_pass(self) -> None:
        """Every Service, then every allocator's IPAddress; retried until it goes through, as the
        queues take over only after it."""
        while True:
            try:
                for key in list(self.services):
                    await self.sync_service(key)
                for name, address in list(self.addresses.items()):
                    if self._managed(address):
                        await self.sync_address(name)
            except (status.StatusError, errors.StorageError, OSError) as error:
                log.warning("%s: the first pass failed, trying again: %s", NAME, error)
                await wallclock.sleep(1.0)
                continue
            self.first_pass_done = True
            return

    async def _resync(self) -> None:
        """Every interval, every key again (upstream's informers resync at the repair interval)."""
        while True:
            await wallclock.sleep(self.interval)
            for key in list(self.services):
                self.service_queue.add(key)
            for name in list(self.addresses):
                self.address_queue.add(name)

    # -- Services ----------------------------------------------------------------------------------
    def _in_some_cidr(self, ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        for cidr in self.cidrs.values():
            for text in (cidr.get("spec") or {}).get("cidrs") or []:
                try:
                    if ip in ipaddress.ip_network(text, strict=False):
                        return True
                except ValueError:
                    continue
        return False

    def _managed(self, address: Obj) -> bool:
        labels = (address.get("metadata") or {}).get("labels") or {}
        return labels.get(self.cluster_ips.managed_by_label) == self.cluster_ips.allocator

    def _labelled(self, address: Obj, family: str) -> bool:
        labels = (address.get("metadata") or {}).get("labels") or {}
        return labels.get(self.cluster_ips.family_label) == family and self._managed(address)

    async def _warn_service(self, service: Obj, reason: str, note: str) -> None:
        await self.events.warning(service, "Service", "v1", _ALLOCATION, reason, note)

    async def sync_service(self, key: str) -> None:
        service = self.services.get(key)
        if service is None or not _holds_ip(service):
            return
        namespace, _, name = key.partition("/")
        for text in (service.get("spec") or {}).get("clusterIPs") or []:
            try:
                ip = ipaddress.ip_address(text)
            except ValueError:
                await self._warn_service(
                    service, "ClusterIPNotValid", f"Cluster IP {text} is not a valid IP; please recreate Service"
                )
                continue
            family = _family(ip)
            if not self._in_some_cidr(ip):
                note = f"Cluster IP [{family}]: {ip} is not within any configured Service CIDR; please recreate service"
                await self._warn_service(service, "ClusterIPOutOfRange", note)
                continue
            address = self.addresses.get(str(ip))
            if address is None:
                note = f"Cluster IP [{family}]: {ip} is not allocated; repairing"
                await self._warn_service(service, "ClusterIPNotAllocated", note)
                await self._create(str(ip), family, service)
                continue
            parent = (address.get("spec") or {}).get("parentRef") or {}
            wrong = f"the ClusterIP [{family}]: {ip} for Service {namespace}/{name} has a wrong reference; repairing"
            if parent.get("group", "") != "" or parent.get("resource") != "services":
                await self._warn_service(service, "ClusterIPNotAllocated", wrong)
                await self._recreate(str(ip), family, service)
                continue
            if (parent.get("namespace"), parent.get("name")) != (namespace, name):
                other = self.services.get(f"{parent.get('namespace', '')}/{parent.get('name', '')}")
                if other is None:
                    await self._warn_service(service, "ClusterIPNotAllocated", wrong)
                    await self._recreate(str(ip), family, service)
                    continue
                if str(ip) in ((other.get("spec") or {}).get("clusterIPs") or []):
                    note = f"Cluster IP [{family}]:{ip} was assigned to multiple services; please recreate service"
                    await self._warn_service(service, "ClusterIPAlreadyAllocated", note)
            if not self._labelled(address, family):
                await self._recreate(str(ip), family, service)

    async def _create(self, ip: str, family: str, service: Obj) -> None:
        try:
            await self.addresses_store.create(
                "",
                self.cluster_ips.address(ip, family, service),
                admission=NoAdmission(),
                user=self.user,
                options=WriteOptions(),
            )
        except status.StatusError as error:
            if error.reason != "AlreadyExists":
                raise

    async def _delete(self, name: str) -> None:
        try:
            await self.addresses_store.delete("", name, DeleteOptions(), admission=NoAdmission(), user=self.user)
        except status.StatusError as error:
            if error.code != 404:
                raise

    async def _recreate(self, ip: str, family: str, service: Obj) -> None:
        await self._delete(ip)
        await self._create(ip, family, service)

    # -- IPAddresses ---------------------------------------------------------------------------------
    async def _warn_address(self, address: Obj, reason: str, note: str) -> None:
        api_version = self.addresses_store.resource.api_version
        await self.events.warning(address, "IPAddress", api_version, _IP_ALLOCATION, reason, note)

    async def sync_address(self, name: str) -> None:
        address = self.addresses.get(name)
        if address is None or not self._managed(address):
            return
        parent = (address.get("spec") or {}).get("parentRef") or {}
        if parent.get("group", "") != "" or parent.get("resource") != "services":
            fields = (parent.get(field, "") for field in ("group", "resource", "namespace", "name"))
            shown = "&{" + " ".join(fields) + "}"  # how Go's %v shows the reference
            note = f"IPAddress {name} appears to have been modified, not referencing a Service {shown}: cleaning up"
            await self._warn_address(address, "IPAddressNotAllocated", note)
            await self._delete(name)
            return
        namespace, service_name = parent.get("namespace", ""), parent.get("name", "")
        service = self.services.get(f"{namespace}/{service_name}")
        if service is None:
            lifetime = wallclock.now() - _created(address)
            if lifetime < LEAK_GRACE:  # creation times have whole seconds: a minute old is old enough
                self.address_queue.add_after(name, LEAK_GRACE - lifetime)
                return
            note = f"IPAddress: {name} for Service {namespace}/{service_name} appears to have leaked: cleaning up"
            await self._warn_address(address, "IPAddressNotAllocated", note)
            await self._delete(name)
            return
        if name in ((service.get("spec") or {}).get("clusterIPs") or []):
            return
        note = f"IPAddress: {name} for Service {namespace}/{service_name} has a wrong reference; cleaning up"
        await self._warn_address(address, "IPAddressWrongReference", note)
        await self._delete(name)
