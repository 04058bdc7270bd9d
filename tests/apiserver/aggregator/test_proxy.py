"""Requests for a remote group version go to its extension server (a real HTTPS server in the test):
with the caller's identity in front-proxy headers and the proxy client certificate, streamed, and
answered 503 `service unavailable` when the APIService is not available, whose condition says why."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiohttp
import pytest

from svc.client.kubeconfig import load_kubeconfig
from svc.client.tls import ssl_context
from svc.testing.extension_server import (
    issue_extension_tls,
    register,
    threaded_extension_server,
)
from svc.testing.harness import RunningServer
from tests.apiserver.aggregator.extension import APISERVICES, METRICS_APISERVICE, metrics, wait_for_available

NODES = "/apis/metrics.k8s.io/v1beta1/nodes"


@pytest.fixture
def kube_server(svc_server_factory) -> RunningServer:
    return svc_server_factory("--brand-profile=kubernetes")


def test_a_remote_group_version_is_proxied_with_the_callers_identity(kube_server, tmp_path: Path) -> None:
    client = kube_server.client()
    api = metrics()
    with threaded_extension_server(api, issue_extension_tls(tmp_path, "metrics", "default")) as extension:
        register(client, extension, service="metrics", namespace="default")
        wait_for_available(client, "True")
        response = client.request("GET", NODES)
    assert response.status == 200
    assert [item["metadata"]["name"] for item in response.json()["items"]] == ["node-a"]
    received = next(r for r in api.requests if r["path"] == "/apis/metrics.k8s.io/v1beta1/nodes")
    assert received["user"] == "kubernetes-admin"
    assert "system:masters" in received["groups"]
    assert received["authorization"] is None


def test_the_proxy_client_certificate_is_presented(svc_server_factory, tmp_path: Path) -> None:
    proxy_identity = issue_extension_tls(tmp_path / "proxy", "front-proxy-client", "x")
    ca_file = tmp_path / "front-proxy-ca.crt"
    ca_file.write_bytes(proxy_identity.ca_pem)
    server = svc_server_factory(
        "--brand-profile=kubernetes",
        f"--proxy-client-cert-file={proxy_identity.cert_file}",
        f"--proxy-client-key-file={proxy_identity.key_file}",
    )
    client = server.client()
    api = metrics()
    tls = issue_extension_tls(tmp_path / "ext", "metrics", "default")
    with threaded_extension_server(api, tls, client_ca=ca_file) as extension:
        register(client, extension, service="metrics", namespace="default")
        wait_for_available(client, "True")
        assert client.request("GET", NODES).status == 200
    assert all(r["client_certificate"] for r in api.requests)


def test_a_watch_is_streamed_through(kube_server, tmp_path: Path) -> None:
    client = kube_server.client()
    with threaded_extension_server(metrics(), issue_extension_tls(tmp_path, "metrics", "default")) as extension:
        register(client, extension, service="metrics", namespace="default")
        wait_for_available(client, "True")
        stream = kube_server.client().stream(NODES, params={"watch": "1", "timeoutSeconds": "1"})
        lines = [json.loads(line) for line in stream]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in lines] == [("ADDED", "node-a")]


def test_a_down_extension_server_is_unavailable_and_requests_get_503(kube_server, tmp_path: Path) -> None:
    client = kube_server.client()
    with threaded_extension_server(metrics(), issue_extension_tls(tmp_path, "metrics", "default")) as extension:
        register(client, extension, service="metrics", namespace="default")
        wait_for_available(client, "True")
    condition = wait_for_available(client, "False")
    assert condition["reason"] == "FailedDiscoveryCheck"
    url = f"https://127.0.0.1:{extension.port}/apis/metrics.k8s.io/v1beta1"
    assert condition["message"] == (
        f'failing or missing response from {url}: Get "{url}": dial tcp 127.0.0.1:{extension.port}: '
        "connect: connection refused"
    )
    response = client.request("GET", NODES)
    assert (response.status, response.body) == (503, b"service unavailable\n")
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    aggregated = client.request("GET", "/apis", accept=accept).json()
    item = next(i for i in aggregated["items"] if i["metadata"]["name"] == "metrics.k8s.io")
    assert item["versions"][0]["freshness"] == "Stale"


def _remote_apiservice(service: str, port: int = 443) -> dict:
    return {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": "v1beta1.metrics.k8s.io"},
        "spec": {
            "group": "metrics.k8s.io",
            "version": "v1beta1",
            "service": {"namespace": "default", "name": service, "port": port},
            "insecureSkipTLSVerify": True,
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
        },
    }


def test_a_missing_service_is_service_not_found(kube_server) -> None:
    client = kube_server.client()
    assert client.request("POST", APISERVICES, body=_remote_apiservice("nowhere")).status == 201
    condition = wait_for_available(client, "False", METRICS_APISERVICE)
    assert condition["reason"] == "ServiceNotFound"
    assert condition["message"] == 'service/nowhere in "default" is not present'


def test_a_service_without_ready_endpoints_is_missing_endpoints(kube_server) -> None:
    client = kube_server.client()
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "metrics", "namespace": "default"},
        "spec": {"ports": [{"name": "https", "port": 443, "targetPort": 4443}]},
    }
    endpoint_slice = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": "metrics-1", "namespace": "default", "labels": {"kubernetes.io/service-name": "metrics"}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.0.0.9"], "conditions": {"ready": False}}],
        "ports": [{"name": "https", "port": 4443, "protocol": "TCP"}],
    }
    assert client.request("POST", "/api/v1/namespaces/default/services", body=service).status == 201
    slices = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
    assert client.request("POST", slices, body=endpoint_slice).status == 201
    assert client.request("POST", APISERVICES, body=_remote_apiservice("metrics")).status == 201
    condition = wait_for_available(client, "False", METRICS_APISERVICE)
    assert condition["reason"] == "MissingEndpoints"
    assert condition["message"] == 'endpoints for service/metrics in "default" have no addresses with port name "https"'
    assert client.request("GET", NODES).status == 503


def test_discovery_includes_the_extension_group(kube_server, tmp_path: Path) -> None:
    client = kube_server.client()
    with threaded_extension_server(metrics(), issue_extension_tls(tmp_path, "metrics", "default")) as extension:
        register(client, extension, service="metrics", namespace="default")
        wait_for_available(client, "True")
        groups = client.request("GET", "/apis").json()["groups"]
        group = client.request("GET", "/apis/metrics.k8s.io").json()
        accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
        aggregated = client.request("GET", "/apis", accept=accept).json()
    assert {"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"} in next(
        g["versions"] for g in groups if g["name"] == "metrics.k8s.io"
    )
    assert group["preferredVersion"]["version"] == "v1beta1"
    item = next(i for i in aggregated["items"] if i["metadata"]["name"] == "metrics.k8s.io")
    resources = {r["resource"]: r for r in item["versions"][0]["resources"]}
    assert resources["pods"]["scope"] == "Namespaced" and resources["nodes"]["scope"] == "Cluster"
    assert resources["nodes"]["responseKind"]["kind"] == "NodeMetrics"


def test_openapi_includes_the_extension_group(kube_server, tmp_path: Path) -> None:
    client = kube_server.client()
    with threaded_extension_server(metrics(), issue_extension_tls(tmp_path, "metrics", "default")) as extension:
        register(client, extension, service="metrics", namespace="default")
        wait_for_available(client, "True")
        v2 = client.request("GET", "/openapi/v2").json()
        index = client.request("GET", "/openapi/v3").json()["paths"]
        v3 = client.request("GET", index["apis/metrics.k8s.io/v1beta1"]["serverRelativeURL"])
    assert "/apis/metrics.k8s.io/v1beta1/nodes" in v2["paths"]
    assert "io.k8s.metrics.v1beta1.NodeMetrics" in v2["definitions"]
    assert "/api/v1/namespaces/{namespace}/pods" in v2["paths"]
    assert v3.status == 200
    assert "/apis/metrics.k8s.io/v1beta1/pods" in v3.json()["paths"]


def test_a_websocket_upgrade_is_relayed(kube_server, tmp_path: Path) -> None:
    client = kube_server.client()
    config = load_kubeconfig(kube_server.kubeconfig)
    headers = {"Authorization": f"Bearer {config.token}"} if config.token else {}

    async def echo() -> tuple[str | None, str]:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(
                f"{kube_server.url}/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1/echo",
                ssl=ssl_context(config),
                headers=headers,
                protocols=("echo.test",),
            ) as socket,
        ):
            await socket.send_str("hello")
            message = await asyncio.wait_for(socket.receive(), 10)
            return socket.protocol, message.data

    with threaded_extension_server(metrics(), issue_extension_tls(tmp_path, "metrics", "default")) as extension:
        register(client, extension, service="metrics", namespace="default")
        wait_for_available(client, "True")
        assert asyncio.run(echo()) == ("echo.test", "hello")
