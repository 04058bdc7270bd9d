"""Where a request for an extension server goes: its service resolved to one address.

As upstream's aggregator: with `--enable-aggregator-routing`, to a ready endpoint of the Service
(from its EndpointSlices, the endpoint port named as the Service port); without it, to the Service's
cluster IP and port; an ExternalName Service to its external name. svc runs no cluster network, so
tests on loopback enable aggregator routing and point the EndpointSlice at 127.0.0.1.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from svc.apiserver.webhook_client import ResolveError, ServiceReference

Obj = dict[str, Any]
ServiceGetter = Callable[[str, str], Awaitable[Obj | None]]
SliceLister = Callable[[str, str], Awaitable[list[Obj]]]


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    @property
    def netloc(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def service_port(service: Obj, port: int) -> Obj | None:
    return next((p for p in (service.get("spec") or {}).get("ports") or () if p.get("port") == port), None)


def ready_addresses(slices: list[Obj], port_name: str) -> list[Address]:
    """Ready endpoint addresses of the slices that carry the named port."""
    found = []
    for endpoint_slice in slices:
        number = next(
            (p.get("port") for p in endpoint_slice.get("ports") or () if (p.get("name") or "") == port_name),
            None,
        )
        if number is None:
            continue
        for endpoint in endpoint_slice.get("endpoints") or ():
            if (endpoint.get("conditions") or {}).get("ready") is False:
                continue
            found.extend(Address(address, int(number)) for address in endpoint.get("addresses") or ())
    return found


class Resolver:
    def __init__(self, get_service: ServiceGetter, list_slices: SliceLister, *, endpoint_routing: bool) -> None:
        self.get_service = get_service
        self.list_slices = list_slices
        self.endpoint_routing = endpoint_routing

    async def resolve(self, reference: ServiceReference) -> Address:
        service = await self.get_service(reference.namespace, reference.name)
        if service is None:
            raise ResolveError(f'service "{reference.name}" not found')
        spec = service.get("spec") or {}
        if spec.get("type") == "ExternalName":
            return Address(spec.get("externalName") or "", reference.port)
        port = service_port(service, reference.port)
        if port is None:
            raise ResolveError(f'no service port {reference.port} found for service "{reference.name}"')
        if not self.endpoint_routing:
            cluster_ip = spec.get("clusterIP") or ""
            if not cluster_ip or cluster_ip == "None":
                raise ResolveError(f'service "{reference.name}" has no cluster IP')
            return Address(cluster_ip, reference.port)
        addresses = ready_addresses(await self.list_slices(reference.namespace, reference.name), port.get("name") or "")
        if not addresses:
            raise ResolveError(f'no endpoints available for service "{reference.name}"')
        return random.choice(addresses)
