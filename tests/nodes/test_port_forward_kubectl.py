"""`kubectl port-forward` against the simulated kubelet: SPDY/3.1 tunnelled through a WebSocket (the
default of kubectl 1.31+) and plain SPDY (KUBECTL_PORT_FORWARD_WEBSOCKETS=false), a real HTTP
request through each."""

from __future__ import annotations

import os
import subprocess
import urllib.request

import pytest

from tests.e2e.kubectl_runner import Kubectl
from tests.nodes.test_pod_port_forward import http_server  # noqa: F401 - the fixture


@pytest.fixture
def kubectl(svc_server_factory, svc_nodes, kubectl_binary, http_server) -> Kubectl:  # noqa: F811 - the fixture
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_nodes(server, "--brand-profile=kubernetes", count=1)
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run("run", "web", "--image=nginx", f"--annotations=simulator.svc.io/ports=8080=127.0.0.1:{http_server}")
    kubectl.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    return kubectl


def _get_through_port_forward(kubectl: Kubectl, websockets: str) -> bytes:
    process = subprocess.Popen(
        [kubectl.binary, "--kubeconfig", str(kubectl.kubeconfig), "port-forward", "pod/web", ":8080"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "KUBECTL_PORT_FORWARD_WEBSOCKETS": websockets},
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("Forwarding from 127.0.0.1:"), line or process.stderr.read()
        port = int(line.split("127.0.0.1:", 1)[1].split(" ", 1)[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/through", timeout=10) as response:
            return response.read()
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_kubectl_port_forward_over_a_websocket_tunnel(kubectl):
    assert _get_through_port_forward(kubectl, "true") == b"hello from /through"


def test_kubectl_port_forward_over_plain_spdy(kubectl):
    assert _get_through_port_forward(kubectl, "false") == b"hello from /through"
