"""A real extension API server for tests and the bench: HTTPS on loopback, serving one group version.

It answers discovery (`/apis`, `/apis/<group>`, `/apis/<group>/<version>`), a small OpenAPI
document (`/openapi/v2`, `/openapi/v3/apis/<group>/<version>`), a WebSocket echo on any path, lists and gets of its
resources (items come from a function called per request, so a test changes what it serves by
changing its data), a watch that sends the current items as ADDED events, and records the
front-proxy headers of every request it receives. `metrics_api` builds the resource metrics API
(`metrics.k8s.io/v1beta1` NodeMetrics and PodMetrics) that `kubectl top` and the HPA read;
`custom_metrics_api` the custom metrics API (`custom.metrics.k8s.io/v1beta2`) of the HPA's Pods and
Object metrics.

`register` makes the API server route to it: an ExternalName Service naming 127.0.0.1 and the
APIService with the server's CA as `caBundle`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ssl
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from aiohttp import WSMsgType, web

from svc.client.rest import RestClient
from svc.machinery.labels import parse_label_selector
from svc.testing.webhook_server import WebhookTls, issue_webhook_tls

Obj = dict[str, Any]


@dataclass
class ExtensionResource:
    name: str
    kind: str
    namespaced: bool
    items: Callable[[], list[Obj]]
    singular: str = ""
    verbs: tuple[str, ...] = ("get", "list", "watch")


@dataclass
class ExtensionApi:
    group: str
    version: str
    resources: list[ExtensionResource]
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Method, path and front-proxy headers of every request received, oldest first."""
    lookup: Callable[[str, list[str], Mapping[str, str]], Obj | None] | None = None
    """Answers (namespace, path segments, query) of a path that is no resource's list or item: the custom
    metrics API's `<resource>/<name>/<metric>`; None is a 404."""

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}"

    def resource_list(self) -> Obj:
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": self.group_version,
            "resources": [
                {
                    "name": r.name,
                    "singularName": r.singular or r.kind.lower(),
                    "namespaced": r.namespaced,
                    "kind": r.kind,
                    "verbs": list(r.verbs),
                }
                for r in self.resources
            ],
        }

    def openapi(self, v3: bool) -> Obj:
        """A small OpenAPI document: a list operation per resource and a definition per kind."""
        group_dots = ".".join(reversed(self.group.split(".")))
        names = {r.kind: f"{group_dots}.{self.version}.{r.kind}" for r in self.resources}
        paths = {
            f"/apis/{self.group_version}/{r.name}": {
                "get": {
                    "operationId": f"list{r.kind}",
                    "x-kubernetes-group-version-kind": {"group": self.group, "version": self.version, "kind": r.kind},
                    "responses": {"200": {"description": "OK"}},
                }
            }
            for r in self.resources
        }
        schemas = {
            names[r.kind]: {
                "type": "object",
                "properties": {"kind": {"type": "string"}, "apiVersion": {"type": "string"}},
                "x-kubernetes-group-version-kind": [{"group": self.group, "version": self.version, "kind": r.kind}],
            }
            for r in self.resources
        }
        if v3:
            return {"openapi": "3.0.0", "info": {"title": self.group, "version": self.version}, "paths": paths,
                    "components": {"schemas": schemas}}  # fmt: skip
        return {"swagger": "2.0", "info": {"title": self.group, "version": self.version}, "paths": paths,
                "definitions": schemas}  # fmt: skip

    def group_object(self) -> Obj:
        version = {"groupVersion": self.group_version, "version": self.version}
        return {"name": self.group, "versions": [version], "preferredVersion": version}


def _json(body: Obj, code: int = 200) -> web.Response:
    return web.Response(status=code, body=orjson.dumps(body), content_type="application/json")


def _not_found(path: str) -> web.Response:
    return _json(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": "the server could not find the requested resource",
            "reason": "NotFound",
            "code": 404,
        },
        404,
    )


async def _echo(request: web.Request) -> web.WebSocketResponse:
    """A WebSocket on any path sends back what it receives (for upgrade pass-through tests)."""
    socket = web.WebSocketResponse(protocols=("echo.test",))
    await socket.prepare(request)
    async for message in socket:
        if message.type == WSMsgType.TEXT:
            await socket.send_str(message.data)
        elif message.type == WSMsgType.BINARY:
            await socket.send_bytes(message.data)
    return socket


def _app(api: ExtensionApi) -> web.Application:
    by_name = {r.name: r for r in api.resources}
    base = f"/apis/{api.group_version}"

    async def handle(request: web.Request) -> web.StreamResponse:
        api.requests.append(
            {
                "method": request.method,
                "path": request.path_qs,
                "user": request.headers.get("X-Remote-User"),
                "groups": request.headers.getall("X-Remote-Group", []),
                "extra": {k: v for k, v in request.headers.items() if k.lower().startswith("x-remote-extra-")},
                "authorization": request.headers.get("Authorization"),
                "client_certificate": request.transport.get_extra_info("peercert") is not None
                if request.transport
                else False,
            }
        )
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await _echo(request)
        path = request.path.rstrip("/")
        if path == "/openapi/v2":
            return _json(api.openapi(v3=False))
        if path == f"/openapi/v3/apis/{api.group_version}":
            return _json(api.openapi(v3=True))
        if path == "/apis":
            return _json({"kind": "APIGroupList", "apiVersion": "v1", "groups": [api.group_object()]})
        if path == f"/apis/{api.group}":
            return _json({"kind": "APIGroup", "apiVersion": "v1", **api.group_object()})
        if path == base:
            return _json(api.resource_list())
        if not path.startswith(base + "/"):
            return _not_found(path)
        parts = path[len(base) + 1 :].split("/")
        namespace = ""
        if len(parts) >= 3 and parts[0] == "namespaces":
            namespace, parts = parts[1], parts[2:]
        resource = by_name.get(parts[0])
        if resource is None or len(parts) > 2:
            found = api.lookup(namespace, parts, request.query) if api.lookup is not None else None
            return _json(found) if found is not None else _not_found(path)
        selector = parse_label_selector(request.query.get("labelSelector", ""))
        items = [
            i
            for i in resource.items()
            if (not namespace or i["metadata"].get("namespace") == namespace)
            and selector.matches(i["metadata"].get("labels") or {})
        ]
        if len(parts) == 2:
            found = next((i for i in items if i["metadata"]["name"] == parts[1]), None)
            return _json(found) if found is not None else _not_found(path)
        if request.query.get("watch") in ("1", "true"):
            response = web.StreamResponse(headers={"Content-Type": "application/json"})
            await response.prepare(request)
            for item in items:
                await response.write(orjson.dumps({"type": "ADDED", "object": item}) + b"\n")
            await asyncio.sleep(float(request.query.get("timeoutSeconds", "1")))
            return response
        return _json({"kind": f"{resource.kind}List", "apiVersion": api.group_version, "metadata": {}, "items": items})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    return app


@dataclass
class RunningExtension:
    api: ExtensionApi
    tls: WebhookTls
    port: int


def issue_extension_tls(directory: Path, service: str, namespace: str) -> WebhookTls:
    """A CA and a serving certificate for `<service>.<namespace>.svc` (the name the API server verifies)."""
    return issue_webhook_tls(directory, [f"{service}.{namespace}.svc", "127.0.0.1"])


@contextlib.contextmanager
def threaded_extension_server(
    api: ExtensionApi, tls: WebhookTls, *, client_ca: Path | None = None, port: int = 0
) -> Iterator[RunningExtension]:
    """Serve `api` on 127.0.0.1 from a thread of its own; with `client_ca`, client certificates signed
    by it are requested (and verified when sent), as an extension server trusting front-proxy headers does."""
    context = tls.server_context()
    if client_ca is not None:
        context.load_verify_locations(cafile=str(client_ca))
        context.verify_mode = ssl.CERT_OPTIONAL
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="svc-test-extension", daemon=True)
    thread.start()
    runner = web.AppRunner(_app(api), access_log=None, shutdown_timeout=0.5)

    async def start() -> int:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", port, ssl_context=context)
        await site.start()
        return runner.addresses[0][1]

    try:
        bound = asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=10)
        yield RunningExtension(api, tls, bound)
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def register(
    client: RestClient,
    extension: RunningExtension,
    *,
    service: str,
    namespace: str,
    apiregistration_group: str = "apiregistration.k8s.io",
) -> None:
    """Create the Service and the APIService (the server's CA as `caBundle`) for `extension`.

    Upstream's validation keeps loopback addresses out of EndpointSlices, so the Service is an
    ExternalName one naming 127.0.0.1, with the extension's port as the referenced port: resolved as
    upstream resolves ExternalName Services, with or without `--enable-aggregator-routing`."""
    api = extension.api
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": service, "namespace": namespace},
        "spec": {"type": "ExternalName", "externalName": "127.0.0.1", "ports": [{"port": extension.port}]},
    }
    api_service = {
        "apiVersion": f"{apiregistration_group}/v1",
        "kind": "APIService",
        "metadata": {"name": f"{api.version}.{api.group}"},
        "spec": {
            "group": api.group,
            "version": api.version,
            "service": {"namespace": namespace, "name": service, "port": extension.port},
            "caBundle": extension.tls.ca_bundle,
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
        },
    }
    for path, body in (
        (f"/api/v1/namespaces/{namespace}/services", svc),
        (f"/apis/{apiregistration_group}/v1/apiservices", api_service),
    ):
        response = client.request("POST", path, body=body)
        if response.status != 201:
            raise AssertionError(f"POST {path}: {response.status} {response.body!r}")


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def node_metrics(name: str, cpu: str, memory: str) -> Obj:
    return {
        "kind": "NodeMetrics",
        "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {"name": name, "creationTimestamp": _now()},
        "timestamp": _now(),
        "window": "10s",
        "usage": {"cpu": cpu, "memory": memory},
    }


def pod_metrics(namespace: str, name: str, containers: dict[str, tuple[str, str]], labels: Obj | None = None) -> Obj:
    return {
        "kind": "PodMetrics",
        "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}, "creationTimestamp": _now()},
        "timestamp": _now(),
        "window": "10s",
        "containers": [{"name": c, "usage": {"cpu": cpu, "memory": mem}} for c, (cpu, mem) in containers.items()],
    }


def metrics_api(
    nodes: Callable[[], list[Obj]], pods: Callable[[], list[Obj]], group: str = "metrics.k8s.io"
) -> ExtensionApi:
    """The resource metrics API: NodeMetrics (`nodes`) and PodMetrics (`pods`)."""
    return ExtensionApi(
        group,
        "v1beta1",
        [
            ExtensionResource("nodes", "NodeMetrics", False, nodes, singular=""),
            ExtensionResource("pods", "PodMetrics", True, pods, singular=""),
        ],
    )


def metric_value(kind: str, namespace: str, name: str, metric: str, value: str) -> Obj:
    """One `custom.metrics.k8s.io/v1beta2` MetricValue describing `kind` `namespace/name`."""
    described = {"kind": kind, "namespace": namespace, "name": name, "apiVersion": "v1"}
    return {"describedObject": described, "metric": {"name": metric}, "timestamp": _now(), "value": value}


def custom_metrics_api(
    resources: list[str], values: Callable[[str, str, str, str, Mapping[str, str]], list[Obj]]
) -> ExtensionApi:
    """The custom metrics API: `resources` are the `<resource>/<metric>` pairs discovery lists, and
    `values(namespace, resource, name, metric, query)` the MetricValues at
    `namespaces/<ns>/<resource>/<name>/<metric>` (name `*` for every object the labelSelector picks)."""

    def lookup(namespace: str, parts: list[str], query: Mapping[str, str]) -> Obj | None:
        if len(parts) != 3:
            return None
        resource, name, metric = parts
        return {
            "kind": "MetricValueList",
            "apiVersion": "custom.metrics.k8s.io/v1beta2",
            "metadata": {},
            "items": values(namespace, resource, name, metric, query),
        }

    listed = [ExtensionResource(name, "MetricValueList", True, list, verbs=("get",)) for name in resources]
    return ExtensionApi("custom.metrics.k8s.io", "v1beta2", listed, lookup=lookup)
