"""DefaultStorageClass, DefaultIngressClass and DefaultTolerationSeconds fill in what a new object left out."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import created, pod

STORAGE_CLASSES = "/apis/storage.svc/v1/storageclasses"
INGRESS_CLASSES = "/apis/networking.svc/v1/ingressclasses"
INGRESSES = "/apis/networking.svc/v1/namespaces/default/ingresses"
CLAIM = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "data"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}
INGRESS = {
    "apiVersion": "networking.svc/v1",
    "kind": "Ingress",
    "metadata": {"name": "web"},
    "spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}},
}


@pytest.fixture
def client(svc_server_factory: Callable[..., RunningServer]) -> RestClient:
    return svc_server_factory(
        "--disable-admission-plugins=ServiceAccount", "--default-unreachable-toleration-seconds=60"
    ).client()


def _post(client: RestClient, path: str, body: dict) -> dict:
    response = client.request("POST", path, body=body)
    assert response.status == 201, response.body
    return response.json()


def _storage_class(client: RestClient, name: str, default: bool) -> None:
    annotations = {"storageclass.svc.io/is-default-class": "true"} if default else {}
    body = {
        "apiVersion": "storage.svc/v1",
        "kind": "StorageClass",
        "metadata": {"name": name, "annotations": annotations},
        "provisioner": "example.com/disk",
    }
    _post(client, STORAGE_CLASSES, body)


def test_claim_without_class_gets_the_default_storage_class(client: RestClient) -> None:
    _storage_class(client, "slow", False)
    _storage_class(client, "fast", True)
    assert created(client, "persistentvolumeclaims", CLAIM)["spec"]["storageClassName"] == "fast"


def test_claim_with_empty_class_keeps_it(client: RestClient) -> None:
    _storage_class(client, "fast", True)
    claim = {**CLAIM, "spec": {**CLAIM["spec"], "storageClassName": ""}}
    assert created(client, "persistentvolumeclaims", claim)["spec"]["storageClassName"] == ""


def test_claim_without_a_default_class_gets_none(client: RestClient) -> None:
    assert "storageClassName" not in created(client, "persistentvolumeclaims", CLAIM)["spec"]


def test_ingress_without_class_gets_the_default_ingress_class(client: RestClient) -> None:
    body = {
        "apiVersion": "networking.svc/v1",
        "kind": "IngressClass",
        "metadata": {"name": "nginx", "annotations": {"ingressclass.svc.io/is-default-class": "true"}},
        "spec": {"controller": "example.com/ingress"},
    }
    _post(client, INGRESS_CLASSES, body)
    assert _post(client, INGRESSES, INGRESS)["spec"]["ingressClassName"] == "nginx"


def test_pods_tolerate_not_ready_and_unreachable_nodes_for_a_while(client: RestClient) -> None:
    assert created(client, "pods", pod())["spec"]["tolerations"] == [
        {"key": "node.svc.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "node.svc.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
    ]


def test_pod_tolerating_everything_gets_no_default_tolerations(client: RestClient) -> None:
    assert created(client, "pods", pod("p", tolerations=[{"operator": "Exists"}]))["spec"]["tolerations"] == [
        {"operator": "Exists"}
    ]
