"""The small built-in plugins: storage protection finalizers, claim resize, RuntimeClass, node taints,
AlwaysPullImages, DenyServiceExternalIPs, the certificate plugins."""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import core_path, create, created, pod

Obj = dict[str, Any]
CSRS = "/apis/certificates.svc/v1/certificatesigningrequests"
CLAIM = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "data"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "storageClassName": "sc"},
}


@pytest.fixture
def client(svc_server: RunningServer) -> RestClient:
    return svc_server.client()


def _post(client: RestClient, path: str, body: Obj) -> Obj:
    response = client.request("POST", path, body=body)
    assert response.status == 201, response.body
    return response.json()


def test_claims_and_volumes_get_their_protection_finalizers(client: RestClient) -> None:
    assert created(client, "persistentvolumeclaims", CLAIM)["metadata"]["finalizers"] == ["svc.io/pvc-protection"]
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/pv"}},
    }
    assert created(client, "persistentvolumes", volume, "")["metadata"]["finalizers"] == ["svc.io/pv-protection"]


def _grow(client: RestClient, size: str) -> Any:
    claim = client.request("GET", core_path("persistentvolumeclaims", name="data")).json()
    claim["spec"]["resources"]["requests"]["storage"] = size
    return client.request("PUT", core_path("persistentvolumeclaims", name="data"), body=claim)


def _bind(client: RestClient) -> None:
    claim = client.request("GET", core_path("persistentvolumeclaims", name="data")).json()
    claim["status"] = {"phase": "Bound"}
    path = core_path("persistentvolumeclaims", name="data") + "/status"
    assert client.request("PUT", path, body=claim).status == 200


def test_claim_grows_only_when_its_class_allows_expansion(client: RestClient) -> None:
    storage_class = {
        "apiVersion": "storage.svc/v1",
        "kind": "StorageClass",
        "metadata": {"name": "sc"},
        "provisioner": "x",
    }
    _post(client, "/apis/storage.svc/v1/storageclasses", storage_class)
    created(client, "persistentvolumeclaims", CLAIM)
    _bind(client)
    assert "the storageclass that provisions the pvc must support resize" in _grow(client, "2Gi").json()["message"]
    expandable = client.request("GET", "/apis/storage.svc/v1/storageclasses/sc").json()
    expandable["allowVolumeExpansion"] = True
    assert client.request("PUT", "/apis/storage.svc/v1/storageclasses/sc", body=expandable).status == 200
    assert _grow(client, "2Gi").status == 200


def test_runtime_class_gives_overhead_and_scheduling(client: RestClient) -> None:
    runtime_class = {
        "apiVersion": "node.svc/v1",
        "kind": "RuntimeClass",
        "metadata": {"name": "sandbox"},
        "handler": "runsc",
        "overhead": {"podFixed": {"cpu": "250m"}},
        "scheduling": {"nodeSelector": {"sandbox": "yes"}, "tolerations": [{"key": "sandbox", "operator": "Exists"}]},
    }
    _post(client, "/apis/node.svc/v1/runtimeclasses", runtime_class)
    spec = created(client, "pods", pod("p", runtimeClassName="sandbox"))["spec"]
    assert spec["overhead"] == {"cpu": "250m"}
    assert spec["nodeSelector"] == {"sandbox": "yes"}
    assert {"key": "sandbox", "operator": "Exists"} in spec["tolerations"]


def test_unknown_runtime_class_is_forbidden(client: RestClient) -> None:
    response = create(client, "pods", pod("p", runtimeClassName="nope"))
    assert response.json()["message"] == 'pods "p" is forbidden: pod rejected: RuntimeClass "nope" not found'


def test_overhead_without_a_runtime_class_is_forbidden(client: RestClient) -> None:
    response = create(client, "pods", pod("p", overhead={"cpu": "1"}))
    assert response.json()["message"] == (
        'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'
    )


def test_new_nodes_start_tainted_not_ready(client: RestClient) -> None:
    node = created(client, "nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}, "")
    assert node["spec"]["taints"] == [{"key": "node.svc.io/not-ready", "effect": "NoSchedule"}]


def test_always_pull_images(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = svc_server_factory(
        "--enable-admission-plugins=AlwaysPullImages", "--disable-admission-plugins=ServiceAccount"
    ).client()
    container = {"name": "c", "image": "nginx", "imagePullPolicy": "IfNotPresent"}
    assert created(client, "pods", pod("p", container))["spec"]["containers"][0]["imagePullPolicy"] == "Always"


def test_new_external_ips_are_denied(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = svc_server_factory("--enable-admission-plugins=DenyServiceExternalIPs").client()
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"ports": [{"port": 80}], "externalIPs": ["192.0.2.10"]},
    }
    response = create(client, "services", service)
    assert response.status == 403
    assert (
        response.json()["message"] == 'services "web" is forbidden: Use of external IPs is denied by admission control'
    )


def _request(organization: str) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, "eve"), x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization)]
    )
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return base64.b64encode(request.public_bytes(serialization.Encoding.PEM)).decode()


def _csr(signer: str, organization: str = "devs") -> Obj:
    return {
        "apiVersion": "certificates.svc/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "eve"},
        "spec": {"request": _request(organization), "signerName": signer, "usages": ["client auth"]},
    }


def test_masters_group_cannot_be_requested_from_the_client_signer(client: RestClient) -> None:
    response = client.request("POST", CSRS, body=_csr("kubernetes.io/kube-apiserver-client", "system:masters"))
    assert response.status == 403
    assert response.json()["message"] == (
        'certificatesigningrequests.certificates.svc "eve" is forbidden: use of kubernetes.io/kube-apiserver-client '
        "signer with system:masters group is not allowed"
    )


def _user_with_rules(server: RunningServer, rules: list[Obj]) -> RestClient:
    """A client of user `bob` (token authentication) holding just `rules`."""
    admin = server.client()
    role = {
        "apiVersion": "rbac.authorization.svc/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "bob"},
        "rules": rules,
    }
    _post(admin, "/apis/rbac.authorization.svc/v1/clusterroles", role)
    binding = {
        "apiVersion": "rbac.authorization.svc/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "bob"},
        "roleRef": {"apiGroup": "rbac.authorization.svc", "kind": "ClusterRole", "name": "bob"},
        "subjects": [{"kind": "User", "name": "bob"}],
    }
    _post(admin, "/apis/rbac.authorization.svc/v1/clusterrolebindings", binding)
    return RestClient(dataclasses.replace(server.anonymous_client().config, token="bob-token"))


@pytest.fixture
def rbac_server(svc_server_factory: Callable[..., RunningServer], tmp_path: Path) -> RunningServer:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("bob-token,bob,u1\n")
    return svc_server_factory(f"--token-auth-file={tokens}", "--authorization-mode=RBAC")


def test_approving_needs_approve_on_the_signer(rbac_server: RunningServer) -> None:
    admin = rbac_server.client()
    _post(admin, CSRS, _csr("example.com/signer"))
    rules = [
        {"apiGroups": ["certificates.svc"], "resources": ["certificatesigningrequests/approval"], "verbs": ["update"]}
    ]
    bob = _user_with_rules(rbac_server, rules)
    csr = admin.request("GET", f"{CSRS}/eve").json()
    csr["status"] = {"conditions": [{"type": "Approved", "status": "True", "reason": "ok", "message": "ok"}]}
    try:
        response = bob.request("PUT", f"{CSRS}/eve/approval", body=csr)
    finally:
        bob.close()
    assert response.status == 403
    assert response.json()["message"] == (
        'certificatesigningrequests.certificates.svc "eve" is forbidden: user not permitted to approve requests '
        'with signerName "example.com/signer"'
    )


def test_binding_copies_the_nodes_topology_labels_to_the_pod(client: RestClient) -> None:
    labels = {"topology.svc.io/zone": "z1", "topology.svc.io/region": "r1", "topology.k8s.io/rack": "a", "other": "x"}
    created(client, "nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": labels}}, "")
    created(client, "pods", pod())
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p"},
        "target": {"kind": "Node", "name": "n1"},
    }
    assert client.request("POST", core_path("pods", name="p") + "/binding", body=binding).status == 201
    bound = client.request("GET", core_path("pods", name="p")).json()
    assert bound["metadata"]["labels"] == {
        "topology.svc.io/zone": "z1",
        "topology.svc.io/region": "r1",
        "topology.k8s.io/rack": "a",
    }
