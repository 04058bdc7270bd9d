"""Assembly of the API server: storage, stores per resource, filters, TLS, and its background loops.

`Server` is the state every handler sees (`ctx.server`). `Server.start()` opens storage, fills the
watch caches, creates the system namespaces and starts serving; `Server.stop()` undoes it in the
reverse order. The same object runs in a process (`svc-apiserver`) or inside a test (`svc.testing`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import platform
import ssl
import sys
import time
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from svc.api.brand import PROFILES
from svc.api.columns import columns_for, row_conditions_for
from svc.api.kinds import strategy_for
from svc.api.resources import Resource, ResourceSet, version_priority
from svc.apiserver import default_service, legacy_token_tracking
from svc.apiserver import health as health_endpoints
from svc.apiserver.admission.chain import Chain
from svc.apiserver.admission.plugins.priority import create_system_priority_classes
from svc.apiserver.admission.plugins.webhook.build import close_webhooks
from svc.apiserver.admission.registry import build_plugins
from svc.apiserver.aggregator.build import build_aggregator
from svc.apiserver.apiextensions.build import build_apiextensions
from svc.apiserver.audit.auditor import build_audit
from svc.apiserver.authn import extension_configmap
from svc.apiserver.authn.authenticator import Union as AuthenticatorUnion
from svc.apiserver.authn.build import Authentication, build_authenticator, build_tokens
from svc.apiserver.authn.loopback import LoopbackToken
from svc.apiserver.authn.token_authentication import TokenAuthentication
from svc.apiserver.authn.x509 import load_client_cas
from svc.apiserver.authz.authorizer import AuthorizerChain
from svc.apiserver.authz.build import Authorization
from svc.apiserver.authz.node.policy import NodePolicy
from svc.apiserver.authz.rbac.escalation import EscalationCheck
from svc.apiserver.authz.rbac.policy import RbacPolicy
from svc.apiserver.chain import build_filters, build_handler_chain
from svc.apiserver.cluster_ip_repair import ClusterIPRepair
from svc.apiserver.context import RequestContext
from svc.apiserver.debug_socket import DebugSocket
from svc.apiserver.discovery import AGGREGATED_KIND, AGGREGATED_VERSIONS, Discovery
from svc.apiserver.encryption.build import build_encryption
from svc.apiserver.event_ttl import EventExpiry
from svc.apiserver.flowcontrol.build import build_flowcontrol
from svc.apiserver.health import HealthCheck, after_grace
from svc.apiserver.kubeconfig import admin_kubeconfig, write_kubeconfig
from svc.apiserver.kubelet_client import KubeletClient
from svc.apiserver.logs import LogSettings
from svc.apiserver.logs_handler import LOG_DIRECTORY
from svc.apiserver.loops import compaction_loop, storage_size_loop
from svc.apiserver.metrics import Metrics
from svc.apiserver.node_port_repair import NodePortRepair
from svc.apiserver.openapi import OpenAPI
from svc.apiserver.options import Options
from svc.apiserver.peers.build import Peers, build_peers
from svc.apiserver.pki import Pki, ensure_pki, serving_hosts
from svc.apiserver.routes import endpoint
from svc.apiserver.serving import ApiHttpServer, listen
from svc.apiserver.serving_limits import ServingLimits
from svc.apiserver.serving_tls import build_serving_context
from svc.apiserver.shutdown import Draining
from svc.apiserver.snapshot_images import SnapshotImages
from svc.apiserver.startup_hooks import post_start_checks
from svc.apiserver.storage_metrics import MeasuredBackend
from svc.apiserver.versioning import emulate, version_fields
from svc.apiserver.watches import Watches
from svc.machinery import status, wallclock
from svc.private_files import make_private_dir
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions
from svc.registry.resource.admin_access import build_admin_access_check
from svc.registry.services.allocation import ServiceAllocation
from svc.registry.services.cluster_ips import ClusterIPs
from svc.registry.services.node_ports import NodePorts
from svc.registry.store import GenericStore
from svc.storage import errors as storage_errors
from svc.storage.backend import Backend
from svc.storage.backends import Backends, open_backends
from svc.storage.objects import ObjectStore
from svc.storage.watch_cache import WatchCache
from svc.version import GIT_VERSION
from svc.wire.cbor_format import CBOR
from svc.wire.formats import JSON, YAML, Format
from svc.wire.negotiation import parse_accept
from svc.wire.protobuf_format import protobuf_format, protobuf_supports
from svc.wire.storage_codecs import storage_codec
from svc.wire.views import DEFAULT_COLUMNS, Column, RowConditions

log = logging.getLogger(__name__)

# Subresources this server serves; the rest of upstream's (token...) come with the
# features that serve them.
SERVED_SUBRESOURCES = frozenset(
    {"status", "scale", "finalize", "binding", "eviction", "ephemeralcontainers", "resize", "approval", "log"}
) | {"exec", "attach", "portforward", "proxy"}
# Livez checks that hold from the first moment, so `--livez-grace-period` does not cover them.
_UNDELAYED = frozenset({"ping", "log"})
# How often the Service IP and node port repair loops go through everything (upstream's default).
SERVICE_REPAIR_INTERVAL = 180.0


class Server:
    def __init__(self, options: Options) -> None:
        self.options = options
        self.profile = PROFILES[options.brand_profile]
        self.resources = ResourceSet(self.profile, options.runtime_config)
        emulate(self.resources, options.versioning, options.runtime_config)
        self.served_subresources = SERVED_SUBRESOURCES | ({"token"} if options.authentication.issues_tokens else set())
        self.protobuf = protobuf_format(self.profile)
        self.cbor_enabled = options.feature_gates.enabled("CBORServingAndStorage")
        self.bookmark_interval = 60.0
        self.watches = Watches()
        self.faults = options.faults.faults
        self.clock = options.clock.build()
        self.snapshot_images = SnapshotImages()
        self.kubelet_client = KubeletClient()
        self.backends: Backends | None = None
        self.backend: Backend | None = None
        self.objects: ObjectStore | None = None
        self.stores: dict[tuple[str, str, str], GenericStore] = {}
        self.service_allocation: ServiceAllocation | None = None
        self.service_repairs: list[ClusterIPRepair | NodePortRepair] = []
        self.metrics = Metrics(self._object_counts, options.metrics)
        self.encryption = build_encryption(
            options.encryption, self.profile, options.store_prefix, self.metrics.registry
        )
        self.loopback = LoopbackToken(self.profile.admin_user) if options.client_ca_file else None
        self.caches: dict[str, WatchCache] = {}
        self.pki: Pki | None = None
        self.kubeconfig_path: Path | None = None
        self.url = ""
        self.bound_url = ""
        self.ready = False
        self.shutting_down = False
        self.draining = Draining()
        self.expiry: EventExpiry | None = None
        self.logs_directory = LOG_DIRECTORY  # what `/logs` serves (`--enable-logs-handler`)
        self.debug_socket = (
            DebugSocket(options.serving.debug_socket_path, lambda: self.options.logging, self._set_logging)
            if options.serving.debug_socket_path
            else None
        )
        self._tasks: list[asyncio.Task[None]] = []
        self.peers: Peers | None = None
        self._preferred_stores: dict[tuple[str, str], tuple[int, GenericStore]] = {}
        self._formats: dict[tuple[str, str], tuple[Format, ...]] = {}
        self._advertised: tuple[int, str] = (0, "")
        self.serving_limits = ServingLimits()
        self.http_server: ApiHttpServer | None = None
        self._listener: asyncio.base_events.Server | None = None
        # Rejects everything until start() builds the real one (the client CA is generated there).
        self.authentication = Authentication(AuthenticatorUnion([], anonymous=False))
        self.authenticator = self.authentication.union
        self.tokens: TokenAuthentication | None = None
        self.rbac = RbacPolicy(self.profile)
        self.node_policy = NodePolicy(self.profile) if "Node" in options.authorization.modes else None
        self.authorization = Authorization(
            options.authorization,
            profile=self.profile,
            rbac=self.rbac.authorizer,
            rbac_index=self.rbac.index,
            node=self.node_policy.authorizer if self.node_policy is not None else None,
            registry=self.metrics.registry,
        )
        # `authorizer` is what requests ask; `authorization` owns the configured chain (reloads, webhook clients).
        self.authorizer: AuthorizerChain = self.authorization
        self.rule_resolver = self.authorization.rules_for
        self.admission = Chain(
            [EscalationCheck(self.rbac.index, self.authorizer), *build_plugins(options.admission, self)],
            self.metrics.admission,
        )
        self.discovery = Discovery(self.resources, self.served_subresources, "")
        self.openapi = OpenAPI(self.resources, self.profile)
        self.apiextensions = build_apiextensions(self)
        self.aggregator = build_aggregator(options.aggregator, self)
        self.audit = build_audit(options.audit, self.metrics.audit)
        self.flowcontrol = build_flowcontrol(options.flowcontrol, self.profile, self.metrics.registry)
        self.chain = build_handler_chain(endpoint, build_filters(options.serving))
        self.version_info = {
            **version_fields(options.versioning),
            "gitVersion": GIT_VERSION,
            "gitCommit": "",
            "gitTreeState": "clean",
            "buildDate": "",
            "goVersion": f"python{platform.python_version()}",
            "compiler": sys.implementation.name,
            "platform": f"{platform.system().lower()}/{platform.machine()}",
        }
        self.health_checks = self._health_checks()

    # -- state for handlers ------------------------------------------------------------------
    def formats_for(self, resource: Resource) -> tuple[Format, ...]:
        """Formats a resource is served in: Protobuf only for kinds with an upstream message, CBOR
        only with its gate on."""
        key = (resource.api_version, resource.kind)
        found = self._formats.get(key)
        if found is None:
            base = (JSON, YAML, CBOR) if self.cbor_enabled else (JSON, YAML)
            if protobuf_supports(self.profile, resource.api_version, resource.kind):
                base = (*base[:2], self.protobuf, *base[2:])
            found = self._formats[key] = base  # asked twice by every write: worked out once per kind
        return found

    def status_formats(self) -> tuple[Format, ...]:
        """Formats an error's Status is written in: every one served (Status has a Protobuf message)."""
        return (JSON, YAML, self.protobuf, CBOR) if self.cbor_enabled else (JSON, YAML, self.protobuf)

    def columns_for(self, resource: Resource) -> tuple[Column, ...]:
        return (
            self.apiextensions.columns_for(resource)
            or columns_for(resource.upstream_group, resource.kind)
            or DEFAULT_COLUMNS
        )

    def row_conditions_for(self, resource: Resource) -> RowConditions | None:
        return row_conditions_for(resource.upstream_group, resource.kind)

    def aggregated_discovery_request(self, accept: str) -> tuple[str, str] | None:
        """(version, content type) when the Accept header asks for aggregated discovery first."""
        for clause in parse_accept(accept):
            params = clause.params
            if params.get("as") == AGGREGATED_KIND and params.get("g") == self.profile.discovery_group:
                version = params.get("v", "")
                if version in AGGREGATED_VERSIONS and clause.subtype in ("json", "*"):
                    content_type = f"application/json;g={self.profile.discovery_group};v={version};as={AGGREGATED_KIND}"
                    return version, content_type
                continue
            if clause.type in ("application", "*") and clause.subtype in ("json", "*") and "as" not in params:
                return None
        return None

    async def health(self, path: str, request: web.BaseRequest) -> web.Response | None:
        return await health_endpoints.serve(path, self.health_checks, request, self.metrics.slis.observe)

    def _object_counts(self) -> dict[tuple[str, str], int]:
        """Objects per (group, resource), from the watch caches, one entry per storage."""
        counts: dict[tuple[str, str], int] = {}
        for store in self.stores.values():
            resource = store.resource
            if store.cache is not None:
                counts[(resource.upstream_group, resource.name)] = len(store.cache.state)
        return counts

    def store_for(self, upstream_group: str, resource: str) -> GenericStore:
        """The store of a resource at its preferred served version, named as upstream names it. Remembered
        while it is still served and no store was added or removed (requests ask on hot paths)."""
        remembered = self._preferred_stores.get((upstream_group, resource))
        if remembered is not None and remembered[0] == len(self.stores):
            found = remembered[1]
            if self.stores.get((found.resource.group, found.resource.version, found.resource.name)) is found:
                return found
        candidates = [
            store
            for (_, version, name), store in self.stores.items()
            if name == resource and store.resource.upstream_group == upstream_group
        ]
        if not candidates:
            raise status.not_found_path()
        found = min(candidates, key=lambda store: version_priority(store.resource.version))
        self._preferred_stores[(upstream_group, resource)] = (len(self.stores), found)
        return found

    async def _get_namespace(self, name: str) -> dict[str, Any] | None:
        """Admission reads namespaces as upstream's plugin does: from a cache of them (the watch cache),
        falling back to storage when that cache is off or does not know the name yet."""
        store = self.stores.get(("", "v1", "namespaces"))
        assert store is not None
        if store.cache is not None:
            cached = store.cache.get(store.key("", name))
            if cached is not None:
                return cached
        try:
            return await store.get("", name)
        except status.StatusError as error:
            if error.code == 404:
                return None
            raise

    def _health_checks(self) -> dict[str, list[HealthCheck]]:
        async def ok() -> None:
            return None

        async def store_check() -> None:
            if self.backends is None:
                raise storage_errors.BackendUnavailableError("storage is not open")
            async with asyncio.timeout(self.options.etcd.healthcheck_timeout):
                for backend in self.backends.all():
                    await backend.current_revision()
                    await backend.get("/health")

        async def store_readiness() -> None:
            """Ready means able to write too: a full disk leaves reads working but fails every write."""
            await store_check()
            assert self.backends is not None
            async with asyncio.timeout(self.options.etcd.readycheck_timeout):
                for backend in self.backends.all():
                    await backend.check_writes()

        async def started() -> None:
            if not self.ready:
                raise RuntimeError("not finished")

        async def caches_synced() -> None:
            if not self.ready:
                raise RuntimeError("watch caches are not synced")

        async def rbac_bootstrapped() -> None:
            if not self.rbac.bootstrapped:
                raise RuntimeError("the bootstrap policy is not reconciled yet")

        async def not_shutting_down() -> None:
            if self.shutting_down:
                raise RuntimeError("process is shutting down")

        kms = self.encryption.health_checks() if self.encryption is not None else []
        common = [
            HealthCheck("ping", ok),
            HealthCheck("log", ok),
            HealthCheck(self.profile.store_check, store_check),
            *kms,
            *post_start_checks(self, started, rbac_bootstrapped),
        ]
        readiness = [
            *common[:3],
            HealthCheck(f"{self.profile.store_check}-readiness", store_readiness),
            *kms,
            HealthCheck("informer-sync", caches_synced),
            *common[3 + len(kms) :],
            HealthCheck("shutdown", not_shutting_down),
        ]
        aggregator = self.aggregator.health_checks()
        live = [*common, *aggregator]
        grace = self.options.serving.livez_grace_period
        until = time.monotonic() + grace
        livez = [check if check.name in _UNDELAYED or not grace else after_grace(check, until) for check in live]
        return {"healthz": live, "livez": livez, "readyz": [*readiness[:-1], *aggregator, readiness[-1]]}

    # -- lifecycle ---------------------------------------------------------------------------
    def _cache_enabled(self, resource: Any) -> bool:
        if not self.options.watch_cache:
            return False
        sizes = self.options.watch_cache_sizes
        for name in (
            resource.name,
            f"{resource.name}.{resource.group}",
            f"{resource.name}.{resource.upstream_group}",
        ):
            if name in sizes:
                return sizes[name] != 0
        return True

    async def _open_storage(self) -> None:
        make_private_dir(self.options.data_dir)
        self.backends = await open_backends(self.options)
        self.backend = self.backends.default
        codec = storage_codec(self.options.storage_media_type, self.profile)
        stored = [resource for resource in self.resources if resource.stored]
        prefixes = [(self.options.store_prefix + r.storage_prefix, (r.upstream_group, r.name)) for r in stored]
        if self.encryption is not None:
            await self.encryption.start()

        def objects_over(backend: Backend) -> ObjectStore:
            measured = MeasuredBackend(backend, self.metrics.storage, prefixes)
            return ObjectStore(measured, codec, self.encryption)  # type: ignore[arg-type]

        self.objects = objects_over(self.backend)
        objects_of = {id(self.backend): self.objects}
        for resource in stored:
            backend = self.backends.for_resource(resource.upstream_group, resource.name)
            objects = objects_of.get(id(backend)) or objects_of.setdefault(id(backend), objects_over(backend))
            prefix = self.options.store_prefix + resource.storage_prefix
            cache = self.caches.get(prefix)
            if cache is None and self._cache_enabled(resource):
                cache = self.caches[prefix] = WatchCache(objects, prefix)
            store = GenericStore(
                strategy_for(
                    resource,
                    self.profile,
                    allow_privileged=self.options.capabilities.allow_privileged,
                    gates=self.options.feature_gates,
                ),
                objects,
                cache,
                self.options.store_prefix,
            )
            store.watch_from_history = self.options.watch_from_history
            store.on_storage_list = self.metrics.storage.list_recorder(resource.upstream_group, resource.name)
            self.stores[(resource.group, resource.version, resource.name)] = store
        self.service_allocation = service_allocation(self)
        for store in self.stores.values():
            if store.resource.upstream_group == "" and store.resource.name == "services":
                store.hooks = self.service_allocation
            else:
                resource = store.resource
                store.hooks = build_admin_access_check(
                    resource.upstream_group, resource.name, resource.group_kind, self._get_namespace
                )
        await asyncio.gather(*(cache.start() for cache in self.caches.values()))

    async def _bootstrap(self) -> None:
        store = self.stores[("", "v1", "namespaces")]
        system = UserInfo(self.profile.apiserver_name, groups=("system:masters",))
        names = (
            "default",
            self.profile.system_namespace,
            self.profile.public_namespace,
            self.profile.node_lease_namespace,
        )
        for name in names:
            obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
            with contextlib.suppress(status.StatusError):
                await store.create("", obj, admission=NoAdmission(), user=system, options=WriteOptions())
        await create_system_priority_classes(self, system)

    async def _publish_authentication_configmap(self, client_cas: list[x509.Certificate]) -> None:
        external = self.options.external_authn
        request_header = self.authentication.request_header
        data = extension_configmap.configmap_data(client_cas, request_header, external.request_header_cas())
        system = UserInfo(self.profile.apiserver_name, groups=("system:masters",))
        store = self.stores[("", "v1", "configmaps")]
        await extension_configmap.publish(store, self.profile.system_namespace, data, system)

    def _ssl_context(self, client_cas: list[x509.Certificate]) -> ssl.SSLContext:
        assert self.pki is not None
        options = self.options
        authorities = [*client_cas, *options.external_authn.request_header_cas()]
        verify_cas = [authority.public_bytes(serialization.Encoding.DER) for authority in authorities]
        if options.tls_cert_file:
            cert, key = options.tls_cert_file, options.tls_private_key_file
        else:
            cert, key = str(self.pki.serving.cert), str(self.pki.serving.key)
        return build_serving_context(cert, key, verify_cas=verify_cas, serving=options.serving)

    def _client_cas(self) -> list[x509.Certificate]:
        """Those of `--client-ca-file` when given (they replace the generated one), else the generated one."""
        assert self.pki is not None
        return load_client_cas(self.options.client_ca_file or self.pki.client_ca.cert)

    async def start(self) -> None:
        # Every task started from here on inherits the clock: caches, loops, and through the listener each
        # connection and request (asyncio and uvloop copy the context into the callbacks they schedule).
        wallclock.bind(self.clock)
        options = self.options
        host = options.bind_address or "0.0.0.0"
        advertise = options.advertise_address or ("127.0.0.1" if host in ("0.0.0.0", "::", "") else host)
        self.pki = await asyncio.get_running_loop().run_in_executor(
            None,
            lambda: ensure_pki(
                options.pki_dir,
                hosts=serving_hosts([advertise, host, options.external_hostname], self.profile.default_service),
                admin_user=self.profile.admin_user,
                apiserver_name=self.profile.apiserver_name,
            ),
        )
        client_cas = self._client_cas()
        self.tokens = await asyncio.get_running_loop().run_in_executor(
            None,
            lambda: build_tokens(
                options,
                loopback=self.loopback,
                profile=self.profile,
                store_for=self.store_for,
                writer=UserInfo(self.profile.apiserver_name, groups=("system:masters",)),
            ),
        )
        await self.tokens.start()
        self.authentication = build_authenticator(
            options, client_cas=client_cas, tokens=self.tokens, profile=self.profile, jwt_metrics=self.metrics.jwt
        )
        self.authenticator = self.authentication.union
        await self._open_storage()
        serving = options.serving
        self.http_server = ApiHttpServer(
            self._handle,
            self.serving_limits,
            on_lost=self.watches.connection_lost,
            http2_streams=0 if serving.disable_http2 else serving.http2_streams,
            answer_gate=self.audit.inline.gate if self.audit is not None and self.audit.inline is not None else None,
        )
        self._listener, port = await listen(
            self.http_server,
            host,
            options.secure_port,
            self._ssl_context(client_cas),
            reuse_port=serving.permit_port_sharing,
        )
        self.url = f"https://{_host_port(advertise, port)}"
        self.bound_url = f"https://{_host_port(host, port)}"
        self.discovery.server_address = _host_port(advertise, port)
        await self._bootstrap()
        await self._publish_authentication_configmap(client_cas)
        self.authentication.start()
        await self.rbac.start(self.store_for, UserInfo(self.profile.apiserver_name, groups=("system:masters",)))
        if self.node_policy is not None:
            await self.node_policy.start(self.store_for)
        await self.apiextensions.start()
        await self.flowcontrol.start(self.store_for, UserInfo(self.profile.apiserver_name, groups=("system:masters",)))
        await self.aggregator.start()
        self.kubeconfig_path = options.data_dir / "admin.kubeconfig"
        config = admin_kubeconfig(
            self.pki,
            server=options.kubeconfig_server or self.url,
            cluster=self.profile.cli_name,
            user=self.profile.admin_user,
            token=self.loopback.token if self.loopback is not None else "",
        )
        write_kubeconfig(self.kubeconfig_path, config)
        self.peers = build_peers(self)
        self._advertised = (port, advertise)
        await default_service.reconcile(self, port, advertise, await self.peers.reconciler.addresses(advertise))
        if self.debug_socket is not None:
            await self.debug_socket.start()
        await legacy_token_tracking.ensure(self)
        self.service_repairs = [
            ClusterIPRepair(self, interval=SERVICE_REPAIR_INTERVAL),
            NodePortRepair(self, interval=SERVICE_REPAIR_INTERVAL),
        ]
        self._tasks = [
            *(asyncio.create_task(repair.run(), name=type(repair).__name__) for repair in self.service_repairs),
            *self.peers.tasks(),
            asyncio.create_task(
                default_service.default_service_loop(self, port, advertise, self.peers.reconciler),
                name="default-service",
            ),
            asyncio.create_task(compaction_loop(self), name="compaction"),
            asyncio.create_task(storage_size_loop(self), name="storage-size"),
            asyncio.create_task(legacy_token_tracking.tracking_loop(self), name="legacy-token-tracking"),
            asyncio.create_task(self.authorization.run_reloads(), name="authorization-config"),
            asyncio.create_task(self.event_expiry().run(), name="event-ttl"),
        ]
        if self.encryption is not None:
            self._tasks.append(asyncio.create_task(self.encryption.run_reloads(), name="encryption-config"))
        self.ready = True

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        response = await self.chain(RequestContext(request, self))
        if request.method == "CONNECT":
            # aiohttp's parser reads what follows a CONNECT's headers as tunnel bytes, not as a body:
            # kept open, the connection would parse a sent body as the next request.
            response.force_close()
        return response

    def _set_logging(self, settings: LogSettings) -> None:
        self.options.logging = settings

    def event_expiry(self) -> EventExpiry:
        """Events go `--event-ttl` after their last write (upstream's etcd lease, see `event_ttl`)."""
        assert self.backends is not None
        prefix = self.options.store_prefix + self.store_for("", "events").resource.storage_prefix
        self.expiry = EventExpiry(self.backends.for_resource("", "events"), prefix, self.options.serving.event_ttl)
        return self.expiry

    def close_listener(self) -> None:
        if self._listener is not None:
            self._listener.close()

    async def stop(self) -> None:
        self.shutting_down = True
        self.ready = False
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.peers is not None:
            await default_service.stop_serving(self, *self._advertised, self.peers.reconciler)
        self.close_listener()
        if self.debug_socket is not None:
            await self.debug_socket.stop()
        await self.rbac.stop()
        await self.flowcontrol.stop()
        await self.authorization.close()
        if self.node_policy is not None:
            await self.node_policy.stop()
        await self.authentication.close()
        await close_webhooks(self)
        await self.aggregator.stop()
        await self.apiextensions.stop()
        for cache in self.caches.values():
            await cache.stop()
        if self.backends is not None:
            await self.backends.close()
        if self.encryption is not None:
            await self.encryption.close()
        self.watches.close()
        await self.kubelet_client.close()
        if self.http_server is not None:
            await self.http_server.shutdown(1.0)
        if self._listener is not None:
            await self._listener.wait_closed()
        if self.audit is not None:
            await self.audit.close()


def service_allocation(server: Server) -> ServiceAllocation:
    """Cluster IPs from `--service-cluster-ip-range` (as IPAddress objects), node ports from
    `--service-node-port-range` (one RangeAllocation value, where upstream keeps it)."""
    options = server.options
    system = UserInfo(server.profile.apiserver_name, groups=("system:masters",))
    cluster_ips = ClusterIPs(
        options.service_cluster_ip_range, server.store_for("networking.k8s.io", "ipaddresses"), server.profile, system
    )
    assert server.objects is not None
    node_ports = NodePorts(
        options.service_node_port_range, server.objects, options.store_prefix + "/ranges/servicenodeports"
    )
    services = server.store_for("", "services")
    return ServiceAllocation(cluster_ips, node_ports, services.resource.group_kind)


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
