"""The aggregation layer as the server wires it: one object to start, stop, route and check.

`route` is asked first for every request under `/apis/<group>/<version>` (and for the v3 OpenAPI
document of a group version): a group version an APIService names a service for is proxied;
everything else is served locally. The health checks carry upstream's names and order:
`autoregister-completion` (every local APIService exists), the registration and the local and remote
availability hooks (the first pass of each has run), and the hooks of the jobs started with the
controllers (`aggregator-reload-proxy-client-cert` only with a proxy client certificate, as upstream).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from aiohttp import web

from svc.apiserver.aggregator.availability import AvailabilityChecker
from svc.apiserver.aggregator.controllers import Controllers
from svc.apiserver.aggregator.discovery import MergedDiscovery
from svc.apiserver.aggregator.openapi import MergedOpenAPI, RemoteSpecs
from svc.apiserver.aggregator.options import AggregatorOptions
from svc.apiserver.aggregator.proxy import Proxy
from svc.apiserver.aggregator.registry import Registry, RemoteService, remote_service
from svc.apiserver.aggregator.resolver import Resolver
from svc.apiserver.aggregator.transport import Transport
from svc.apiserver.context import RequestContext
from svc.apiserver.health import Check, HealthCheck
from svc.machinery import status
from svc.registry.admission import UserInfo
from svc.registry.options import ListOptions

Obj = dict[str, Any]

# How often APIServices are reconciled and remote ones checked.
SYNC_INTERVAL_SECONDS = 1.0


class Aggregator:
    def __init__(self, options: AggregatorOptions, server: Any) -> None:
        self.server = server
        self.registry = Registry()
        self.transport = Transport(options)
        self._proxy_client_cert = bool(options.proxy_client_cert_file)
        self.resolver = Resolver(
            self._get_service, self._list_slices, endpoint_routing=options.enable_aggregator_routing
        )
        self.specs = RemoteSpecs(self.resolver, self.transport)
        self.proxy = Proxy(self.resolver, self.transport, reject_redirects=options.reject_forwarding_redirect)
        built_in = frozenset(group.name for group in server.resources.groups)
        self.controllers = Controllers(
            store=self._store,
            served=self._served,
            built_in=built_in,
            profile=server.profile,
            checker=AvailabilityChecker(self.resolver, self.transport),
            specs=self.specs,
            registry=self.registry,
            user=UserInfo(server.profile.apiserver_name, groups=("system:masters",)),
            interval=SYNC_INTERVAL_SECONDS,
        )
        self.discovery = MergedDiscovery(self.registry, self.controllers.discovery)
        self.openapi = MergedOpenAPI(self.registry, self.specs)
        self._task: asyncio.Task[None] | None = None

    # -- collaborators read through the server's stores --------------------------------------
    def _store(self) -> Any:
        return self.server.store_for("apiregistration.k8s.io", "apiservices")

    def _served(self) -> list[tuple[str, str]]:
        return [(group.name, version) for group in self.server.resources.groups for version in group.versions]

    async def _get_service(self, namespace: str, name: str) -> Obj | None:
        try:
            return await self.server.store_for("", "services").get(namespace, name)
        except status.StatusError as error:
            if error.code == 404:
                return None
            raise

    async def _list_slices(self, namespace: str, name: str) -> list[Obj]:
        label = self.server.profile.label("kubernetes.io/service-name")
        listed = await self.server.store_for("discovery.k8s.io", "endpointslices").list(namespace, ListOptions())
        return [s for s in listed["items"] if ((s.get("metadata") or {}).get("labels") or {}).get(label) == name]

    # -- requests ----------------------------------------------------------------------------
    async def _remote(self, group: str, version: str) -> RemoteService | None:
        entry = self.registry.lookup(group, version)
        if entry is not None or self.server.resources.group(group) is not None:
            return entry
        # not known yet: an APIService created a moment ago is read now rather than at the next pass
        try:
            obj = await self._store().get("", f"{version}.{group}")
        except status.StatusError:
            return None
        return remote_service(obj)

    async def route(self, ctx: RequestContext, path: str) -> web.StreamResponse | None:
        """The proxied response for a remote group version's path, or None to serve locally."""
        parts = path.removeprefix("/openapi/v3").split("/", 4)
        if len(parts) < 4 or parts[1] != "apis" or not parts[2] or not parts[3]:
            return None
        if not self.registry.remote and self.server.resources.group(parts[2]) is not None:
            return None
        entry = await self._remote(parts[2], parts[3])
        if entry is None:
            return None
        return await self.proxy.serve(ctx, entry)

    # -- lifecycle and health ----------------------------------------------------------------
    def health_checks(self) -> list[HealthCheck]:
        async def autoregister_completion() -> None:
            if not self.controllers.registered:
                pending = sorted(self.controllers.pending_local) or ["(not yet synced)"]
                raise RuntimeError(f"missing APIService: [{' '.join(pending)}]")

        async def registration() -> None:
            if not self.controllers.registered:
                raise RuntimeError("not finished")

        async def available() -> None:
            if not self.controllers.checked:
                raise RuntimeError("not finished")

        async def started() -> None:
            if self._task is None:
                raise RuntimeError("not started")

        hooks: list[tuple[str, Check]] = [
            ("aggregator-reload-proxy-client-cert", started),
            ("start-kube-aggregator-informers", started),
            ("apiservice-status-local-available-controller", available),
            ("apiservice-status-remote-available-controller", available),
            ("apiservice-registration-controller", registration),
            ("apiservice-discovery-controller", started),
            (f"{self.server.profile.apiserver_name}-autoregistration", started),
        ]
        if not self._proxy_client_cert:
            hooks = hooks[1:]
        return [
            *(HealthCheck(f"poststarthook/{name}", check) for name, check in hooks),
            HealthCheck("autoregister-completion", autoregister_completion),
            HealthCheck("poststarthook/apiservice-openapi-controller", started),
            HealthCheck("poststarthook/apiservice-openapiv3-controller", started),
        ]

    async def start(self) -> None:
        with contextlib.suppress(Exception):
            await self.controllers.sync_once()
        self._task = asyncio.create_task(self.controllers.run(), name="aggregator-controllers")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.transport.close()


def build_aggregator(options: AggregatorOptions, server: Any) -> Aggregator:
    return Aggregator(options, server)
