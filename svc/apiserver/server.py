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
import socket
import ssl
import sys
from pathlib import Path
from typing import Any

from aiohttp import web

from svc.api.brand import PROFILES
from svc.api.columns import columns_for, row_conditions_for
from svc.api.kinds import strategy_for
from svc.api.resources import Resource, ResourceSet
from svc.apiserver import health as health_endpoints
from svc.apiserver.admission.chain import Chain
from svc.apiserver.admission.plugins.namespace_lifecycle import NamespaceLifecycle
from svc.apiserver.authn import x509
from svc.apiserver.authn.authenticator import Union as AuthenticatorUnion
from svc.apiserver.authn.token_file import TokenFile
from svc.apiserver.authz.modes import build_authorizer
from svc.apiserver.chain import build_handler_chain
from svc.apiserver.context import RequestContext
from svc.apiserver.discovery import AGGREGATED_KIND, AGGREGATED_VERSIONS, Discovery
from svc.apiserver.garbage_collector import GarbageCollector
from svc.apiserver.health import HealthCheck
from svc.apiserver.kubeconfig import admin_kubeconfig, write_kubeconfig
from svc.apiserver.loops import compaction_loop, namespace_finalizer_loop
from svc.apiserver.openapi import OpenAPI
from svc.apiserver.options import GIT_VERSION, Options
from svc.apiserver.pki import Pki, ensure_pki, serving_hosts
from svc.apiserver.routes import endpoint
from svc.machinery import status
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions
from svc.registry.store import GenericStore
from svc.storage import errors as storage_errors
from svc.storage.objects import ObjectStore
from svc.storage.sqlite.backend import SqliteBackend
from svc.storage.watch_cache import WatchCache
from svc.wire.cbor_format import CBOR
from svc.wire.formats import JSON, YAML, Format
from svc.wire.negotiation import parse_accept
from svc.wire.protobuf_format import protobuf_format, protobuf_supports
from svc.wire.storage_codecs import storage_codec
from svc.wire.views import DEFAULT_COLUMNS, Column, RowConditions

log = logging.getLogger(__name__)

MAX_HEADER_BYTES = 1 << 20

SERVED_SUBRESOURCES = frozenset({"status", "scale", "finalize"})


class Server:
    def __init__(self, options: Options) -> None:
        self.options = options
        self.profile = PROFILES[options.brand_profile]
        self.resources = ResourceSet(self.profile, options.runtime_config)
        self.served_subresources = SERVED_SUBRESOURCES
        self.protobuf = protobuf_format(self.profile)
        self.cbor_enabled = options.feature_gates.enabled("CBORServingAndStorage")
        self.bookmark_interval = 60.0
        self.backend: SqliteBackend | None = None
        self.objects: ObjectStore | None = None
        self.stores: dict[tuple[str, str, str], GenericStore] = {}
        self.caches: dict[str, WatchCache] = {}
        self.pki: Pki | None = None
        self.kubeconfig_path: Path | None = None
        self.url = ""
        self.ready = False
        self.shutting_down = False
        self._tasks: list[asyncio.Task[None]] = []
        self._runner: web.Server | None = None
        self._listener: asyncio.base_events.Server | None = None
        authenticators: list[Any] = [x509.authenticate]
        if options.token_auth_file:
            authenticators.append(TokenFile(options.token_auth_file))
        self.authenticator = AuthenticatorUnion(authenticators, anonymous=options.anonymous_auth)
        self.authorizer = build_authorizer(options.authorization_mode)
        immortal = frozenset({"default", self.profile.system_namespace, self.profile.public_namespace})
        self.admission = Chain([NamespaceLifecycle(self._get_namespace, immortal)])
        self.discovery = Discovery(self.resources, self.served_subresources, "")
        self.openapi = OpenAPI(self.resources, self.profile)
        self.chain = build_handler_chain(endpoint)
        self.version_info = {
            "major": "1",
            "minor": "36",
            "emulationMajor": "1",
            "emulationMinor": "36",
            "minCompatibilityMajor": "1",
            "minCompatibilityMinor": "35",
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
        base = (JSON, YAML, CBOR) if self.cbor_enabled else (JSON, YAML)
        if protobuf_supports(self.profile, resource.api_version, resource.kind):
            return (*base[:2], self.protobuf, *base[2:])
        return base

    def status_formats(self) -> tuple[Format, ...]:
        """Formats an error's Status is written in: every one served (Status has a Protobuf message)."""
        return (JSON, YAML, self.protobuf, CBOR) if self.cbor_enabled else (JSON, YAML, self.protobuf)

    def columns_for(self, resource: Resource) -> tuple[Column, ...]:
        return columns_for(resource.upstream_group, resource.kind) or DEFAULT_COLUMNS

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
        return await health_endpoints.serve(path, self.health_checks, request)

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
            if self.backend is None:
                raise storage_errors.BackendUnavailableError("storage is not open")
            await self.backend.current_revision()
            await self.backend.get("/health")

        async def started() -> None:
            if not self.ready:
                raise RuntimeError("not finished")

        async def caches_synced() -> None:
            if not self.ready:
                raise RuntimeError("watch caches are not synced")

        async def not_shutting_down() -> None:
            if self.shutting_down:
                raise RuntimeError("process is shutting down")

        common = [
            HealthCheck("ping", ok),
            HealthCheck("log", ok),
            HealthCheck(self.profile.store_check, store_check),
            HealthCheck("poststarthook/start-apiserver-admission-initializer", started),
            HealthCheck("poststarthook/generic-apiserver-start-informers", started),
            HealthCheck("poststarthook/start-system-namespaces-controller", started),
        ]
        readiness = [
            *common[:3],
            HealthCheck(f"{self.profile.store_check}-readiness", store_check),
            HealthCheck("informer-sync", caches_synced),
            *common[3:],
            HealthCheck("shutdown", not_shutting_down),
        ]
        return {"healthz": common, "livez": common, "readyz": readiness}

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
        self.options.data_dir.mkdir(parents=True, exist_ok=True)
        self.backend = SqliteBackend(self.options.data_dir / "state.db")
        await self.backend.start()
        self.objects = ObjectStore(self.backend, storage_codec(self.options.storage_media_type, self.profile))
        for resource in self.resources:
            if not resource.stored:
                continue
            prefix = self.options.store_prefix + resource.storage_prefix
            cache = self.caches.get(prefix)
            if cache is None and self._cache_enabled(resource):
                cache = self.caches[prefix] = WatchCache(self.objects, prefix)
            store = GenericStore(strategy_for(resource, self.profile), self.objects, cache, self.options.store_prefix)
            self.stores[(resource.group, resource.version, resource.name)] = store
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

    def _ssl_context(self) -> ssl.SSLContext:
        assert self.pki is not None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        options = self.options
        if options.tls_cert_file:
            context.load_cert_chain(options.tls_cert_file, options.tls_private_key_file)
        else:
            context.load_cert_chain(self.pki.serving.cert, self.pki.serving.key)
        context.load_verify_locations(cafile=str(self.pki.client_ca.cert))
        if options.client_ca_file:
            context.load_verify_locations(cafile=options.client_ca_file)
        context.verify_mode = ssl.CERT_OPTIONAL
        context.set_alpn_protocols(["http/1.1"])
        return context

    async def start(self) -> None:
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
        await self._open_storage()
        # As upstream's Go server: a request body is read as sent (Content-Encoding is not undone, so a
        # compressed body fails to decode as any format: a 400 Status, not aiohttp's payload error), and
        # the request line and header fields may take up to 1 MiB (MaxHeaderBytes 1 << 20).
        self._runner = web.Server(
            self._handle,
            handler_cancellation=False,
            auto_decompress=False,
            max_line_size=MAX_HEADER_BYTES,
            max_field_size=MAX_HEADER_BYTES,
        )
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, options.secure_port))
        port = sock.getsockname()[1]
        self._listener = await asyncio.get_running_loop().create_server(
            self._runner, sock=sock, ssl=self._ssl_context(), backlog=1024
        )
        address = f"[{advertise}]" if ":" in advertise else advertise
        self.url = f"https://{address}:{port}"
        self.discovery.server_address = f"{address}:{port}"
        await self._bootstrap()
        self.kubeconfig_path = options.data_dir / "admin.kubeconfig"
        config = admin_kubeconfig(
            self.pki,
            server=options.kubeconfig_server or self.url,
            cluster=self.profile.cli_name,
            user=self.profile.admin_user,
        )
        write_kubeconfig(self.kubeconfig_path, config)
        self._tasks = [
            asyncio.create_task(namespace_finalizer_loop(self), name="namespace-finalizer"),
            asyncio.create_task(compaction_loop(self), name="compaction"),
        ]
        if options.enable_garbage_collector:
            self._tasks.append(asyncio.create_task(GarbageCollector(self).run(), name="garbage-collector"))
        self.ready = True

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        response = await self.chain(RequestContext(request, self))
        if request.method == "CONNECT":
            # aiohttp's parser reads what follows a CONNECT's headers as tunnel bytes, not as a body:
            # kept open, the connection would parse a sent body as the next request.
            response.force_close()
        return response

    async def stop(self) -> None:
        self.shutting_down = True
        self.ready = False
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._listener is not None:
            self._listener.close()
        for cache in self.caches.values():
            await cache.stop()
        if self.backend is not None:
            await self.backend.close()
        if self._runner is not None:
            await self._runner.shutdown(1.0)
        if self._listener is not None:
            await self._listener.wait_closed()
