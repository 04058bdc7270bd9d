"""`kubectl port-forward` against the simulated kubelet: SPDY/3.1 tunnelled through a WebSocket (the
default of kubectl 1.31+) and plain SPDY (KUBECTL_PORT_FORWARD_WEBSOCKETS=false), a real HTTP
request through each, and a megabyte each way (past SPDY's 64 KiB window, which kubectl's
spdystream does not keep: the flow control must not stall it)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import urllib.request
from collections.abc import Iterator

import pytest

from tests.e2e.kubectl_runner import Kubectl
from tests.nodes.test_pod_port_forward import PAYLOAD, http_server  # noqa: F401 - the fixture


@pytest.fixture
def kubectl(svc_server_factory, svc_nodes, kubectl_binary, http_server) -> Kubectl:  # noqa: F811 - the fixture
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_nodes(server, "--brand-profile=kubernetes", count=1)
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run("run", "web", "--image=nginx", f"--annotations=simulator.svc.io/ports=8080=127.0.0.1:{http_server}")
    kubectl.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    return kubectl


@contextlib.contextmanager
def port_forward(kubectl: Kubectl, websockets: str) -> Iterator[str]:
    """The base URL of a running `kubectl port-forward pod/web :8080`."""
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
        yield f"http://127.0.0.1:{int(line.split('127.0.0.1:', 1)[1].split(' ', 1)[0])}"
    finally:
        process.terminate()
        process.communicate(timeout=10)


def _get_through_port_forward(kubectl: Kubectl, websockets: str) -> bytes:
    with port_forward(kubectl, websockets) as base, urllib.request.urlopen(f"{base}/through", timeout=10) as response:
        return response.read()


def test_kubectl_port_forward_over_a_websocket_tunnel(kubectl):
    assert _get_through_port_forward(kubectl, "true") == b"hello from /through"


def test_kubectl_port_forward_over_plain_spdy(kubectl):
    assert _get_through_port_forward(kubectl, "false") == b"hello from /through"


@pytest.mark.parametrize("websockets", ["false", "true"], ids=["plain-spdy", "websocket-tunnel"])
def test_a_megabyte_each_way_through_kubectl_port_forward(kubectl, websockets):
    with port_forward(kubectl, websockets) as base:
        with urllib.request.urlopen(f"{base}/bulk", timeout=30) as response:
            assert response.read() == PAYLOAD
        upload = urllib.request.Request(f"{base}/bulk", data=PAYLOAD, method="POST")
        with urllib.request.urlopen(upload, timeout=30) as response:
            assert response.read() == PAYLOAD
