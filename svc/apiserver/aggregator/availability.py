"""The `Available` condition of APIServices, checked as upstream's availability controller does.

A local APIService is always available (`Local`). A remote one is checked step by step, each failure
with upstream's reason and message: the Service exists (`ServiceNotFound`), a ClusterIP Service
listens on the referenced port (`ServicePortError`), it has EndpointSlices (`EndpointsNotFound`) with a
ready address for that port (`MissingEndpoints`), and the extension server answers its discovery
document (`FailedDiscoveryCheck`); then `Passed`. The discovery document fetched by the last step is
kept: it is what merged discovery shows for the group version.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from svc.apiserver.aggregator.registry import RemoteService
from svc.apiserver.aggregator.resolver import Resolver, ready_addresses, service_port
from svc.apiserver.aggregator.transport import Transport, TransportError
from svc.apiserver.webhook_client import Endpoint, ResolveError, _transport_reason

Obj = dict[str, Any]

DISCOVERY_TIMEOUT_SECONDS = 5.0
AGGREGATOR_USER = "system:kube-aggregator"
LOCAL = {"type": "Available", "status": "True", "reason": "Local", "message": "Local APIServices are always available"}


@dataclass(frozen=True)
class Verdict:
    status: str
    reason: str
    message: str
    discovery: Obj | None = None

    def condition(self) -> Obj:
        return {"type": "Available", "status": self.status, "reason": self.reason, "message": self.message}


def _false(reason: str, message: str) -> Verdict:
    return Verdict("False", reason, message)


class AvailabilityChecker:
    def __init__(self, resolver: Resolver, transport: Transport) -> None:
        self.resolver = resolver
        self.transport = transport

    async def check(self, entry: RemoteService) -> Verdict:
        reference = entry.service
        where = f'service/{reference.name} in "{reference.namespace}"'
        service = await self.resolver.get_service(reference.namespace, reference.name)
        if service is None:
            return _false("ServiceNotFound", f"{where} is not present")
        if ((service.get("spec") or {}).get("type") or "ClusterIP") == "ClusterIP":
            port = service_port(service, reference.port)
            if port is None:
                return _false("ServicePortError", f"{where} is not listening on port {reference.port}")
            slices = await self.resolver.list_slices(reference.namespace, reference.name)
            if not slices:
                return _false("EndpointsNotFound", f"cannot find endpoints for {where}")
            port_name = port.get("name") or ""
            if not ready_addresses(slices, port_name):
                return _false(
                    "MissingEndpoints", f'endpoints for {where} have no addresses with port name "{port_name}"'
                )
        return await self._discovery_check(entry)

    async def _discovery_check(self, entry: RemoteService) -> Verdict:
        path = f"/apis/{entry.group}/{entry.version}"
        try:
            address = await self.resolver.resolve(entry.service)
        except ResolveError as error:
            return _false("FailedDiscoveryCheck", f"failing or missing response from {path}: {error}")
        url = f"https://{address.netloc}{path}"
        try:
            context = self.transport.ssl_context(entry.ca_bundle, entry.insecure)
        except TransportError as error:
            return _false("FailedDiscoveryCheck", f"failing or missing response from {url}: {error}")
        headers = {
            "Accept": "application/json",
            "X-Remote-User": AGGREGATOR_USER,
            "X-Remote-Group": "system:masters",
        }
        try:
            async with asyncio.timeout(DISCOVERY_TIMEOUT_SECONDS):
                async with self.transport.session().get(
                    url, headers=headers, ssl=context, server_hostname=entry.service.server_name, allow_redirects=False
                ) as response:
                    body = await response.read()
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            endpoint = Endpoint(url, address.host, address.port, entry.service.server_name)
            reason = _transport_reason(error, endpoint)
            return _false("FailedDiscoveryCheck", f'failing or missing response from {url}: Get "{url}": {reason}')
        if not 200 <= response.status < 300:
            return _false(
                "FailedDiscoveryCheck",
                f"failing or missing response from {url}: bad status from {url}: {response.status}",
            )
        try:
            document = orjson.loads(body)
        except orjson.JSONDecodeError:
            document = None
        return Verdict("True", "Passed", "all checks passed", document if isinstance(document, dict) else None)
