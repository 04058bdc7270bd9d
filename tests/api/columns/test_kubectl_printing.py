"""Real kubectl printing our tables.

kubectl makes the objects (`create ... --dry-run=client -o json`), the column sets turn them into a
`Table`, and kubectl reads that table from a minimal stub API server and prints it. The expected text is
what `kubectl get` prints for the same objects on an upstream cluster.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from svc.api.columns import columns_for
from svc.wire.views import table
from tests.api.columns.support import ago

pytestmark = pytest.mark.kubectl

_RESOURCES = {
    "/api/v1": [("pods", "Pod"), ("services", "Service")],
    "/apis/apps/v1": [("deployments", "Deployment")],
}


def _discovery(path: str) -> dict[str, Any] | None:
    if path == "/api":
        return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
    if path == "/apis":
        version = {"groupVersion": "apps/v1", "version": "v1"}
        group = {"name": "apps", "versions": [version], "preferredVersion": version}
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [group]}
    if path in _RESOURCES:
        resources = [
            {"name": name, "singularName": "", "namespaced": True, "kind": kind, "verbs": ["get", "list"]}
            for name, kind in _RESOURCES[path]
        ]
        group_version = path.removeprefix("/apis/").removeprefix("/api/")
        return {"kind": "APIResourceList", "groupVersion": group_version, "resources": resources}
    return None


class _StubServer:
    """Serves legacy discovery and one Table per collection path."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, Any]] = {}
        tables = self.tables

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                body = _discovery(path) or tables.get(path)
                if body is None:
                    self.send_error(404)
                    return
                payload = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                return

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"


@pytest.fixture
def stub() -> Iterator[_StubServer]:
    server = _StubServer()
    thread = threading.Thread(target=server.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.http.shutdown()
    server.http.server_close()


class _Kubectl:
    def __init__(self, binary: str, tmp_path: Path, server: str) -> None:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
        self.base = [
            binary,
            "--kubeconfig",
            str(kubeconfig),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--server",
            server,
        ]

    def __call__(self, *args: str) -> str:
        result = subprocess.run([*self.base, *args], capture_output=True, text=True, timeout=60, check=False)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def made(self, *args: str) -> dict[str, Any]:
        """An object as kubectl creates it, given a namespace, an age of five minutes and a version."""
        obj = json.loads(self(*args, "--dry-run=client", "-o", "json"))
        obj["metadata"].update(namespace="default", creationTimestamp=ago(minutes=5), resourceVersion="7")
        return obj


@pytest.fixture
def kubectl(kubectl_binary: str, tmp_path: Path, stub: _StubServer) -> _Kubectl:
    return _Kubectl(kubectl_binary, tmp_path, stub.url)


def _serve(stub: _StubServer, path: str, group: str, objects: list[dict[str, Any]]) -> None:
    columns = columns_for(group, objects[0]["kind"])
    assert columns is not None
    stub.tables[path] = table(
        objects,
        columns,
        api_version="meta.k8s.io/v1",
        include_object="Object",
        metadata={"resourceVersion": "7"},
    )


def _rows(printed: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in printed.strip().splitlines()]


def test_kubectl_prints_a_deployment_table(kubectl: _Kubectl, stub: _StubServer) -> None:
    deployment = kubectl.made("create", "deployment", "web", "--image=nginx:1.25", "--replicas=3")
    deployment["status"] = {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 2, "availableReplicas": 2}
    _serve(stub, "/apis/apps/v1/namespaces/default/deployments", "apps", [deployment])

    printed = kubectl("get", "deployments", "-n", "default", "-o", "wide")

    assert _rows(printed) == [
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
        ["web", "2/3", "3", "2", "5m", "nginx", "nginx:1.25", "app=web"],
    ]


def test_kubectl_prints_pods_with_and_without_wide_columns(kubectl: _Kubectl, stub: _StubServer) -> None:
    pod = kubectl.made("run", "web-0", "--image=nginx")
    pod["spec"]["nodeName"] = "node-1"
    pod["status"] = {
        "phase": "Running",
        "podIP": "10.1.0.7",
        "podIPs": [{"ip": "10.1.0.7"}],
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {
                "name": "web-0",
                "ready": True,
                "restartCount": 2,
                "state": {"running": {"startedAt": ago(minutes=3)}},
                "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": ago(minutes=3)}},
            }
        ],
    }
    _serve(stub, "/api/v1/namespaces/default/pods", "", [pod])

    assert _rows(kubectl("get", "pods", "-n", "default")) == [
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        ["web-0", "1/1", "Running", "2 (3m ago)", "5m"],
    ]
    wide = kubectl("get", "pods", "-n", "default", "-o", "wide")
    assert _rows(wide) == [
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        ["web-0", "1/1", "Running", "2 (3m ago)", "5m", "10.1.0.7", "node-1", "<none>", "<none>"],
    ]


def test_kubectl_prints_a_node_port_service(kubectl: _Kubectl, stub: _StubServer) -> None:
    service = kubectl.made("create", "service", "nodeport", "web", "--tcp=80:8080")
    service["spec"].update(clusterIP="10.96.12.7", clusterIPs=["10.96.12.7"])
    service["spec"]["ports"][0]["nodePort"] = 30080
    _serve(stub, "/api/v1/namespaces/default/services", "", [service])

    printed = kubectl("get", "services", "-n", "default", "-o", "wide")

    assert _rows(printed) == [
        ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
        ["web", "NodePort", "10.96.12.7", "<none>", "80:30080/TCP", "5m", "app=web"],
    ]
