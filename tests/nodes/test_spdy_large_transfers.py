"""Transfers well past SPDY's 64 KiB window through kubectl over SPDY/3.1 (kubectl's spdystream keeps
no windows, so this is what the flow control must not break): 1 MiB each way through `kubectl
port-forward`, plain and tunnelled through a WebSocket, and 1 MiB of stdin echoed back by `kubectl
attach`, each byte in order."""

from __future__ import annotations

import http.server
import os
import subprocess
import threading
import urllib.request
from collections.abc import Iterator

import pytest

from tests.e2e.kubectl_runner import Kubectl

PAYLOAD = b"".join(b"line %07d\n" % n for n in range(1024 * 1024 // 13))  # 1,048,572 bytes


class _Bulk(http.server.BaseHTTPRequestHandler):
    """GET: the payload; POST: the body sent back."""

    def _answer(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer(PAYLOAD)

    def do_POST(self) -> None:
        self._answer(self.rfile.read(int(self.headers["Content-Length"])))

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def bulk_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Bulk)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def kubectl(svc_server_factory, svc_nodes, kubectl_binary, bulk_server) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_nodes(server, "--brand-profile=kubernetes", count=1)
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run("run", "web", "--image=nginx", f"--annotations=simulator.svc.io/ports=8080=127.0.0.1:{bulk_server}")
    kubectl.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    return kubectl


def _through_port_forward(kubectl: Kubectl, websockets: str) -> tuple[bytes, bytes]:
    """(GET body, POST echo) through one `kubectl port-forward`."""
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
        url = f"http://127.0.0.1:{int(line.split('127.0.0.1:', 1)[1].split(' ', 1)[0])}/bulk"
        with urllib.request.urlopen(url, timeout=30) as response:
            downloaded = response.read()
        with urllib.request.urlopen(urllib.request.Request(url, data=PAYLOAD, method="POST"), timeout=30) as response:
            echoed = response.read()
        return downloaded, echoed
    finally:
        process.terminate()
        process.communicate(timeout=10)


@pytest.mark.parametrize("websockets", ["false", "true"], ids=["plain-spdy", "websocket-tunnel"])
def test_a_megabyte_each_way_through_kubectl_port_forward(kubectl, websockets):
    downloaded, echoed = _through_port_forward(kubectl, websockets)
    assert downloaded == PAYLOAD
    assert echoed == PAYLOAD


def test_a_megabyte_of_stdin_comes_back_through_kubectl_attach_over_spdy(kubectl):
    text = PAYLOAD.decode()
    result = kubectl.run("attach", "-i", "web", stdin=text, env={"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false"})
    assert len(result.stdout) == len(text)
    assert result.stdout == text
