"""`pods/portforward` over WebSocket with the official Python client, relayed through the simulated
kubelet to an HTTP server the test runs "inside" the pod, or to the built-in echo."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator

import pytest
from kubernetes import client as k8s
from kubernetes import config
from kubernetes.stream import portforward

from tests.e2e.kubectl_runner import Kubectl

PAYLOAD = b"".join(b"line %07d\n" % n for n in range(1024 * 1024 // 13))
"""About 1 MiB, far past SPDY's 64 KiB window, numbered lines so that lost or reordered bytes show."""


class _Hello(http.server.BaseHTTPRequestHandler):
    """GET: a greeting naming the path (`/bulk`: the payload); POST: the body sent back."""

    def _answer(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer(PAYLOAD if self.path == "/bulk" else f"hello from {self.path}".encode())

    def do_POST(self) -> None:
        self._answer(self.rfile.read(int(self.headers["Content-Length"])))

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def http_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def api(svc_server_factory, svc_nodes, kubectl_binary, http_server, tmp_path) -> Iterator[k8s.CoreV1Api]:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_nodes(server, "--brand-profile=kubernetes", count=1)
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run(
        "run",
        "web",
        "--image=nginx",
        "--port=8080",
        f"--annotations=simulator.svc.io/ports=8080=127.0.0.1:{http_server}",
    )
    kubectl.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    configuration = k8s.Configuration()
    config.load_kube_config(str(server.kubeconfig), client_configuration=configuration, temp_file_path=str(tmp_path))
    with k8s.ApiClient(configuration) as api_client:
        yield k8s.CoreV1Api(api_client)


def _receive_all(sock, limit: int = 100) -> bytes:
    received = b""
    for _ in range(limit):
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def test_an_http_request_reaches_the_server_behind_the_forwarded_port(api):
    forward = portforward(api.connect_get_namespaced_pod_portforward, "web", "default", ports="8080")
    sock = forward.socket(8080)
    sock.settimeout(10)
    sock.sendall(b"GET /index HTTP/1.1\r\nHost: web\r\nConnection: close\r\n\r\n")
    response = _receive_all(sock)
    sock.close()
    assert response.startswith(b"HTTP/1.0 200") or response.startswith(b"HTTP/1.1 200")
    assert response.endswith(b"hello from /index")


def test_an_unmapped_port_echoes_what_it_receives(api):
    forward = portforward(api.connect_get_namespaced_pod_portforward, "web", "default", ports="9000")
    sock = forward.socket(9000)
    sock.settimeout(10)
    sock.sendall(b"ping")
    assert sock.recv(4) == b"ping"
    sock.close()


def test_a_port_forward_that_is_not_an_upgrade_is_a_bad_request(api):
    with pytest.raises(k8s.ApiException) as raised:
        api.connect_get_namespaced_pod_portforward("web", "default", ports="8080")
    assert raised.value.status == 400
    assert "Upgrade request required" in raised.value.body


def test_a_websocket_port_forward_also_needs_the_create_permission(svc_server_factory, svc_nodes, kubectl_binary):
    running = svc_server_factory("--brand-profile=kubernetes", "--authorization-mode=RBAC")
    svc_nodes(running, "--brand-profile=kubernetes", count=1)
    admin = Kubectl(kubectl_binary, running.kubeconfig)
    admin.run("run", "web", "--image=nginx")
    admin.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    admin.run("create", "role", "peek", "--verb=get", "--resource=pods,pods/portforward")
    admin.run("create", "rolebinding", "peek", "--role=peek", "--user=jane")
    result = admin.run("--as=jane", "port-forward", "pod/web", ":9000", check=False)
    assert result.returncode != 0
    assert 'cannot create resource "pods/portforward" in API group "" in the namespace "default"' in result.stderr


def test_a_port_forward_outlives_the_request_timeout(svc_server_factory, svc_nodes, kubectl_binary, tmp_path):
    running = svc_server_factory("--brand-profile=kubernetes", "--request-timeout=1s")
    svc_nodes(running, "--brand-profile=kubernetes", count=1)
    admin = Kubectl(kubectl_binary, running.kubeconfig)
    admin.run("run", "web", "--image=nginx")
    admin.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    configuration = k8s.Configuration()
    config.load_kube_config(str(running.kubeconfig), client_configuration=configuration, temp_file_path=str(tmp_path))
    with k8s.ApiClient(configuration) as api_client:
        api = k8s.CoreV1Api(api_client)
        forward = portforward(api.connect_get_namespaced_pod_portforward, "web", "default", ports="9000")
        sock = forward.socket(9000)
        sock.settimeout(10)
        time.sleep(1.5)
        sock.sendall(b"still there")
        assert sock.recv(11) == b"still there"
        sock.close()
