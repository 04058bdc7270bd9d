"""`pods/proxy`, `services/proxy` and `nodes/proxy` with real kubectl: the API server reaches the
simulated pod network through the simulator's CONNECT endpoint (its egress selector), where a test
HTTP server stands "inside" the pod."""

from __future__ import annotations

import http.server
import socket
import socketserver
import ssl
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator

import pytest
from kubernetes import client as k8s
from kubernetes import config

from tests.e2e.kubectl_runner import Kubectl


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def http_port() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def kubectl(svc_server_factory, svc_nodes, kubectl_binary, http_port, tmp_path) -> Kubectl:
    proxy_port = _free_port()
    egress = tmp_path / "egress.yaml"
    egress.write_text(
        "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n"
        "- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n"
        f"      tcp:\n        url: http://127.0.0.1:{proxy_port}\n"
    )
    server = svc_server_factory("--brand-profile=kubernetes", f"--egress-selector-config-file={egress}")
    svc_nodes(server, "--brand-profile=kubernetes", f"--pod-network-proxy=127.0.0.1:{proxy_port}", count=1)
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run(
        "run", "web", "--image=nginx", "--port=8080", f"--annotations=simulator.svc.io/ports=8080=127.0.0.1:{http_port}"
    )
    kubectl.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    return kubectl


def test_get_raw_through_a_pods_proxy_reaches_the_container(kubectl):
    result = kubectl.run("get", "--raw", "/api/v1/namespaces/default/pods/web:8080/proxy/some/path?x=1")
    assert result.stdout == "hello from /some/path?x=1"


def test_a_pods_proxy_without_a_port_uses_the_first_declared_container_port(kubectl):
    assert kubectl.run("get", "--raw", "/api/v1/namespaces/default/pods/web/proxy/").stdout == "hello from /"


def test_a_malformed_pod_name_is_a_bad_request(kubectl):
    result = kubectl.run("get", "--raw", "/api/v1/namespaces/default/pods/ftp:web:80/proxy/", check=False)
    assert result.returncode != 0
    assert 'invalid pod request "ftp:web:80"' in result.stderr


def test_a_services_proxy_goes_to_a_ready_endpoint_of_its_slices(kubectl):
    kubectl.run("create", "service", "clusterip", "web", "--tcp=80:8080")
    pod_ip = kubectl.run("get", "pod", "web", "-o", "jsonpath={.status.podIP}").stdout
    kubectl.run(
        "apply",
        "-f",
        "-",
        stdin=(
            "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: web-manual\n"
            "  labels:\n    kubernetes.io/service-name: web\naddressType: IPv4\n"
            f"endpoints:\n- addresses: [{pod_ip}]\n  conditions: {{ready: true}}\n"
            "ports:\n- name: 80-8080\n  port: 8080\n  protocol: TCP\n"
        ),
    )
    result = kubectl.run("get", "--raw", "/api/v1/namespaces/default/services/web:80/proxy/svc")
    assert result.stdout == "hello from /svc"


def test_a_service_without_endpoints_is_unavailable(kubectl):
    kubectl.run("create", "service", "clusterip", "lonely", "--tcp=80:8080")
    result = kubectl.run("get", "--raw", "/api/v1/namespaces/default/services/lonely:80/proxy/", check=False)
    assert result.returncode != 0
    assert 'no endpoints available for service "lonely"' in result.stderr


def test_a_nodes_proxy_reaches_the_kubelet(kubectl):
    node = kubectl.run("get", "nodes", "-o", "jsonpath={.items[0].metadata.name}").stdout
    assert kubectl.run("get", "--raw", f"/api/v1/nodes/{node}/proxy/healthz").stdout == "ok"


def test_kubectl_proxy_serves_a_pods_proxy(kubectl):
    process = subprocess.Popen(
        [kubectl.binary, "--kubeconfig", str(kubectl.kubeconfig), "proxy", "--port=0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        port = int(line.strip().rsplit(":", 1)[1])
        url = f"http://127.0.0.1:{port}/api/v1/namespaces/default/pods/web:8080/proxy/via-kubectl"
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.read() == b"hello from /via-kubectl"
    finally:
        process.terminate()
        process.wait(timeout=10)


class _EchoAfterUpgrade(socketserver.StreamRequestHandler):
    """Switches to a made-up `echo` protocol, then writes back what it reads."""

    def handle(self) -> None:
        for _ in range(100):
            if self.rfile.readline() in (b"\r\n", b""):
                break
        self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
        self.wfile.flush()
        self.wfile.write(self.request.recv(1024))


def test_an_upgrade_is_passed_through_a_pods_proxy(svc_server_factory, svc_nodes, tmp_path):
    echo = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _EchoAfterUpgrade)
    threading.Thread(target=echo.serve_forever, daemon=True).start()
    proxy_port = _free_port()
    egress = tmp_path / "egress.yaml"
    egress.write_text(
        "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n"
        "- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n"
        f"      tcp:\n        url: http://127.0.0.1:{proxy_port}\n"
    )
    server = svc_server_factory("--brand-profile=kubernetes", f"--egress-selector-config-file={egress}")
    svc_nodes(server, "--brand-profile=kubernetes", f"--pod-network-proxy=127.0.0.1:{proxy_port}", count=1)
    configuration = k8s.Configuration()
    config.load_kube_config(str(server.kubeconfig), client_configuration=configuration, temp_file_path=str(tmp_path))
    with k8s.ApiClient(configuration) as api_client:
        api = k8s.CoreV1Api(api_client)
        annotations = {"simulator.svc.io/ports": f"8080=127.0.0.1:{echo.server_address[1]}"}
        pod = {
            "metadata": {"name": "ws", "annotations": annotations},
            "spec": {"containers": [{"name": "c", "image": "x"}]},
        }
        api.create_namespaced_pod("default", pod)
        for _ in range(100):
            if (api.read_namespaced_pod("ws", "default").status.pod_ip or "").count("."):
                break
            time.sleep(0.1)
    context = ssl.create_default_context(cafile=configuration.ssl_ca_cert)
    if configuration.cert_file:
        context.load_cert_chain(configuration.cert_file, configuration.key_file)
    address = urllib.parse.urlsplit(configuration.host)
    auth = configuration.api_key.get("authorization", "")
    raw = socket.create_connection((address.hostname, address.port), timeout=10)
    with raw, context.wrap_socket(raw, server_hostname=address.hostname) as tls:
        tls.sendall(
            b"GET /api/v1/namespaces/default/pods/ws:8080/proxy/ HTTP/1.1\r\nHost: svc\r\n"
            + (f"Authorization: {auth}\r\n".encode() if auth else b"")
            + b"Connection: Upgrade\r\nUpgrade: echo\r\n\r\n"
        )
        head = b""
        for _ in range(100):
            head += tls.recv(4096)
            if b"\r\n\r\n" in head:
                break
        assert head.startswith(b"HTTP/1.1 101")
        tls.sendall(b"ping")
        assert tls.recv(4) == b"ping"
    echo.shutdown()
    echo.server_close()


def test_a_pods_proxy_is_authorized_as_the_verb_on_pods_proxy(svc_server_factory, svc_nodes, kubectl_binary):
    running = svc_server_factory("--brand-profile=kubernetes", "--authorization-mode=RBAC")
    admin = Kubectl(kubectl_binary, running.kubeconfig)
    admin.run("create", "role", "peek", "--verb=get", "--resource=pods")
    admin.run("create", "rolebinding", "peek", "--role=peek", "--user=jane")
    result = admin.run("--as=jane", "get", "--raw", "/api/v1/namespaces/default/pods/web:80/proxy/", check=False)
    assert result.returncode != 0
    assert 'User "jane" cannot get resource "pods/proxy" in API group "" in the namespace "default"' in result.stderr


def test_a_service_port_number_it_does_not_have_is_unavailable(kubectl):
    kubectl.run("create", "service", "clusterip", "web", "--tcp=80:8080")
    result = kubectl.run("get", "--raw", "/api/v1/namespaces/default/services/web:81/proxy/", check=False)
    assert result.returncode != 0
    assert 'no service port 81 found for service "web"' in result.stderr
