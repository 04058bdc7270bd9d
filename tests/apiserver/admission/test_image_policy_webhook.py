"""ImagePolicyWebhook: a backend on loopback reviews the images of new pods; a dead backend fails
closed, or open with `defaultAllow`."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer, free_port
from tests.apiserver.admission.conftest import create, created, pod

REVIEWS: list[dict] = []


class Backend(BaseHTTPRequestHandler):
    """Allows every image but `evil`."""

    def do_POST(self) -> None:
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        REVIEWS.append(review)
        images = [c["image"] for c in review["spec"]["containers"]]
        status = {"allowed": "evil" not in images, "reason": "evil is not allowed" if "evil" in images else ""}
        body = json.dumps({**review, "status": status}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def backend_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Backend)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    REVIEWS.clear()
    yield server.server_address[1]
    server.shutdown()
    thread.join(timeout=10)


def _client(factory: Callable[..., RunningServer], tmp_path: Path, port: int, default_allow: bool) -> RestClient:
    kubeconfig = tmp_path / "backend.kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: backend\n"
        f"clusters:\n- name: backend\n  cluster: {{server: 'http://127.0.0.1:{port}/review'}}\n"
        "users:\n- name: apiserver\n  user: {token: secret}\n"
        "contexts:\n- name: backend\n  context: {cluster: backend, user: apiserver}\n"
    )
    config = tmp_path / "admission.yaml"
    config.write_text(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
        "- name: ImagePolicyWebhook\n  configuration:\n    imagePolicy:\n"
        f"      kubeConfigFile: {kubeconfig}\n      allowTTL: 50\n      denyTTL: 50\n      retryBackoff: 10\n"
        f"      defaultAllow: {str(default_allow).lower()}\n"
    )
    return factory(
        "--enable-admission-plugins=ImagePolicyWebhook",
        "--disable-admission-plugins=ServiceAccount",
        f"--admission-control-config-file={config}",
    ).client()


def test_backend_denies_an_image_with_its_reason(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path, backend_port: int
) -> None:
    client = _client(svc_server_factory, tmp_path, backend_port, default_allow=False)
    assert create(client, "pods", pod("good")).status == 201
    response = create(client, "pods", pod("bad", {"name": "c", "image": "evil"}))
    assert response.status == 403
    assert response.json()["message"] == (
        'pods "bad" is forbidden: image policy webhook backend denied one or more images: evil is not allowed'
    )
    assert REVIEWS[0]["apiVersion"] == "imagepolicy.k8s.io/v1alpha1"
    assert REVIEWS[0]["spec"] == {"containers": [{"image": "nginx"}], "annotations": {}, "namespace": "default"}


def test_dead_backend_fails_closed(svc_server_factory: Callable[..., RunningServer], tmp_path: Path) -> None:
    client = _client(svc_server_factory, tmp_path, free_port(), default_allow=False)
    response = create(client, "pods", pod())
    assert response.status == 403
    assert response.json()["message"].startswith('pods "p" is forbidden: Post http://127.0.0.1:')


def test_dead_backend_with_default_allow_admits_and_marks_the_pod(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    client = _client(svc_server_factory, tmp_path, free_port(), default_allow=True)
    stored = created(client, "pods", pod())
    assert stored["metadata"]["annotations"] == {"alpha.image-policy.k8s.io/failed-open": "true"}
