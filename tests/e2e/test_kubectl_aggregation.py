"""kubectl through the aggregation layer: an extension server in the test serves the resource metrics
API; `kubectl get`, `api-resources` and `top` reach it through the API server."""

from __future__ import annotations

from pathlib import Path

import pytest

from svc.testing.extension_server import issue_extension_tls, register, threaded_extension_server
from svc.testing.harness import RunningServer
from tests.apiserver.aggregator.extension import metrics, wait_for_available
from tests.e2e.kubectl_runner import Kubectl

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "node-a"},
    "status": {"allocatable": {"cpu": "2", "memory": "4Gi"}, "capacity": {"cpu": "2", "memory": "4Gi"}},
}


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary: str, tmp_path: Path):
    server: RunningServer = svc_server_factory("--brand-profile=kubernetes")
    client = server.client()
    assert client.request("POST", "/api/v1/nodes", body=NODE).status == 201
    status = {"status": NODE["status"]}
    patched = client.request(
        "PATCH", "/api/v1/nodes/node-a/status", body=status, content_type="application/merge-patch+json"
    )
    assert patched.status == 200
    with threaded_extension_server(metrics(), issue_extension_tls(tmp_path, "metrics-server", "kube-system")) as ext:
        register(client, ext, service="metrics-server", namespace="kube-system")
        wait_for_available(client, "True")
        yield Kubectl(kubectl_binary, server.kubeconfig)


def test_kubectl_gets_an_extension_resource(kubectl: Kubectl) -> None:
    out = kubectl.run("get", "nodes.metrics.k8s.io", "-o", "name").stdout
    assert out.strip() == "nodemetrics.metrics.k8s.io/node-a"


def test_kubectl_api_resources_lists_the_extension_group(kubectl: Kubectl) -> None:
    out = kubectl.run("api-resources", "--api-group=metrics.k8s.io").stdout
    rows = [line.split() for line in out.splitlines()[1:]]
    assert sorted(row[0] for row in rows) == ["nodes", "pods"]
    assert all(row[1] == "metrics.k8s.io/v1beta1" for row in rows)


def test_kubectl_top_nodes(kubectl: Kubectl) -> None:
    out = kubectl.run("top", "nodes").stdout.splitlines()
    assert out[0].split()[:3] == ["NAME", "CPU(cores)", "CPU(%)"]
    assert out[1].split() == ["node-a", "250m", "12%", "512Mi", "12%"]


def test_kubectl_top_pods(kubectl: Kubectl) -> None:
    out = kubectl.run("top", "pods", "-n", "default").stdout.splitlines()
    assert out[1].split() == ["web-1", "120m", "64Mi"]
