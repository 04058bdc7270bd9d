"""Which address a webhook's service reference leads to: one of the Service's endpoints.

Upstream resolves a service reference either to the Service's clusterIP (kube-proxy carries the
connection on) or, with `--enable-aggregator-routing`, to one of its endpoints. svc runs no cluster
network, so a clusterIP is not reachable and svc always routes to endpoints, with upstream's rules and
error texts (`k8s.io/apiserver/pkg/util/proxy.ResolveEndpoint`): the Service must exist and be of type
ClusterIP, NodePort or LoadBalancer; its port with the referenced number names the endpoint port
(matched by name); a random address of a subset that has that port is dialled.

So a webhook running on loopback is reached through a Service without a selector and an Endpoints
object of the same name listing `127.0.0.1` and the webhook's port.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any

from svc.apiserver.webhook_client import ResolveError, ServiceResolver

ObjectGetter = Callable[[str, str, str], Awaitable[dict[str, Any] | None]]
"""(resource, namespace, name) -> the core/v1 object, or None when there is none."""

_ROUTABLE_TYPES = frozenset({"ClusterIP", "NodePort", "LoadBalancer"})


def endpoints_resolver(get: ObjectGetter) -> ServiceResolver:
    """A `ServiceResolver` reading Services and Endpoints through `get`."""

    async def resolve(namespace: str, name: str, port: int) -> tuple[str, int]:
        service = await get("services", namespace, name)
        if service is None:
            raise ResolveError(f'service "{name}" not found')
        spec = service.get("spec") or {}
        service_type = spec.get("type") or "ClusterIP"
        if service_type not in _ROUTABLE_TYPES:
            raise ResolveError(f'unsupported service type "{service_type}"')
        service_port = next((p for p in spec.get("ports") or () if p.get("port") == port), None)
        if service_port is None:
            raise ResolveError(f'no service port {port} found for service "{name}"')
        endpoints = await get("endpoints", namespace, name)
        if endpoints is None:
            raise ResolveError(f'endpoints "{name}" not found')
        port_name = service_port.get("name") or ""
        for subset in endpoints.get("subsets") or ():
            addresses = subset.get("addresses") or ()
            if not addresses:
                continue
            for endpoint_port in subset.get("ports") or ():
                if (endpoint_port.get("name") or "") == port_name:
                    address = random.choice(addresses)
                    return address["ip"], int(endpoint_port["port"])
        raise ResolveError(f'no endpoints available for service "{name}"')

    return resolve
