"""Which addresses the cluster's own Service's endpoints list: upstream's endpoint reconcilers.

- `lease` (the default): each API server writes `<prefix>/masterleases/<ip>` (an Endpoints object naming
  its address) with a 15 s etcd lease every interval, and lists every live key as the endpoints; one that
  stops (or crashes) drops out when its key expires, one that shuts down removes its key at once. On the
  embedded store there are no peers: the endpoints are the server's own address.
- `master-count` (deprecated upstream): each server adds its own address to the endpoints and, past
  `--apiserver-count` addresses, drops the ones after its own (wrapping around), so the list settles.
- `none`: the endpoints are left alone.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from svc.machinery import status
from svc.storage import errors
from svc.storage.backends import is_etcd

if TYPE_CHECKING:
    from svc.apiserver.server import Server
    from svc.storage.etcd.backend import EtcdBackend

log = logging.getLogger(__name__)

LEASE_TTL_SECONDS = 15
MASTER_LEASES = "/masterleases/"


class EndpointReconciler(Protocol):
    async def addresses(self, own: str) -> list[str] | None:
        """The addresses the endpoints should list, or None to leave them alone."""
        ...

    async def stop(self, own: str) -> list[str] | None:
        """The addresses once this server stops serving (its own removed), or None to leave them alone."""
        ...


class NoReconciler:
    async def addresses(self, own: str) -> list[str] | None:
        return None

    async def stop(self, own: str) -> list[str] | None:
        return None


class LeaseReconciler:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.prefix = server.options.store_prefix + MASTER_LEASES

    def _backend(self) -> EtcdBackend | None:
        backend = self.server.backend
        return backend if is_etcd(backend) else None

    async def addresses(self, own: str) -> list[str] | None:
        backend = self._backend()
        if backend is None:
            return [own]
        lease = {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": {"name": own, "creationTimestamp": None},
            "subsets": [{"addresses": [{"ip": own}]}],
        }
        await backend.put_expiring(self.prefix + own, self.server.objects.encode(lease), LEASE_TTL_SECONDS)
        return await self._listed(backend)

    async def stop(self, own: str) -> list[str] | None:
        backend = self._backend()
        if backend is None:
            return None
        current = await backend.get(self.prefix + own)
        if current is not None:
            try:
                await backend.delete(self.prefix + own, expected_revision=current.mod_revision)
            except (errors.KeyNotFoundError, errors.RevisionConflictError):
                pass
        return [address for address in await self._listed(backend) if address != own]

    async def _listed(self, backend: EtcdBackend) -> list[str]:
        found = await backend.range(self.prefix, self.prefix[:-1] + "0")
        addresses = set()
        for kv in found.kvs:
            try:
                lease = self.server.objects.codec.decode(kv.value)
                addresses.add(lease["subsets"][0]["addresses"][0]["ip"])
            except (ValueError, KeyError, IndexError, TypeError):
                log.warning("ignoring the malformed master lease %s", kv.key)
        return sorted(addresses)


class MasterCountReconciler:
    def __init__(self, server: Server, count: int) -> None:
        self.server = server
        self.count = count

    async def _current(self) -> list[str]:
        store = self.server.store_for("", "endpoints")
        try:
            endpoints = await store.get("default", self.server.profile.default_service)
        except status.StatusError as error:
            if error.code != 404:
                raise
            return []
        subsets = endpoints.get("subsets") or []
        if len(subsets) != 1:
            return []
        return [address.get("ip", "") for address in subsets[0].get("addresses") or []]

    async def addresses(self, own: str) -> list[str] | None:
        current = await self._current()
        if own in current and len(current) <= self.count:
            return current
        addresses = sorted({*current, own})
        index = addresses.index(own)
        while len(addresses) > self.count:
            addresses.pop((index + 1) % len(addresses))
            index = addresses.index(own)
        return addresses

    async def stop(self, own: str) -> list[str] | None:
        return [address for address in await self._current() if address != own]


def build_endpoint_reconciler(server: Server) -> EndpointReconciler:
    peers = server.options.peers
    if peers.endpoint_reconciler_type == "none":
        return NoReconciler()
    if peers.endpoint_reconciler_type == "master-count":
        return MasterCountReconciler(server, peers.apiserver_count)
    return LeaseReconciler(server)
