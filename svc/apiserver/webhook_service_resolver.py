"""Which address a webhook's service reference leads to.

Upstream resolves a service reference with `k8s.io/apiserver/pkg/util/proxy`: by default to the
Service's clusterIP (kube-proxy carries the connection on) or, for an ExternalName Service, to its
external name and the referenced port (`ResolveCluster`); with `--enable-aggregator-routing`, to one
of the Service's endpoints (`ResolveEndpoint`). svc runs no cluster network, so a clusterIP leads
nowhere. svc's rule, with upstream's error texts:
- ExternalName: `<externalName>:<referenced port>`, as upstream's default resolver.
- ClusterIP, NodePort, LoadBalancer: an endpoint, as upstream's endpoint routing: the Service's port
  with the referenced number names the endpoint port (matched by name); a random address of a subset
  that has that port is dialled.
- any other type: `unsupported service type`.

Endpoints may not hold loopback addresses (upstream's validation refuses them), so a webhook running
on loopback (a test's) is reached through an ExternalName Service named `localhost`, with the
webhook's port as the reference's port; TLS still verifies `<name>.<namespace>.svc`.
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
        if service_type == "ExternalName":
            return spec.get("externalName") or "", port
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
