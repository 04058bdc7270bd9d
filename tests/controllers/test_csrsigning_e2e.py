"""The CSR signing controller in the real daemon beside a real API server."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.csr_fixtures import make_ca, make_key_and_request, make_request
from tests.controllers.test_daemon import wait_for
from tests.e2e.kubectl_runner import Kubectl

CSRS = "/apis/certificates.svc/v1/certificatesigningrequests"


def approved_client_request(rest: Any, name: str, usages: list[str]) -> None:
    """An apiserver-client request for `name` (organization dev), approved through the REST client."""
    spec = {"request": make_request(name, ("dev",)), "signerName": "svc.io/svc-apiserver-client", "usages": usages}
    assert rest.request("POST", CSRS, body={"metadata": {"name": name}, "spec": spec}).status == 201
    current = rest.request("GET", f"{CSRS}/{name}").json()
    approved = {"type": "Approved", "status": "True", "reason": "ByTest", "message": "approved by the test"}
    current["status"] = {"conditions": [approved]}
    assert rest.request("PUT", f"{CSRS}/{name}/approval", body=current).status == 200


def signing_with_a_new_ca(
    tmp_path: Path, server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> x509.Certificate:
    """The csrsigning controller beside `server`, signing with a CA made for the test (returned)."""
    cert_file, key_file, ca = make_ca(tmp_path)
    svc_controller_manager(
        server,
        "--controllers=csrsigning",
        f"--cluster-signing-cert-file={cert_file}",
        f"--cluster-signing-key-file={key_file}",
    )
    return ca


def test_an_approved_request_gets_a_certificate_signed_by_the_cluster_ca(
    tmp_path: Path, svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    ca = signing_with_a_new_ca(tmp_path, svc_server, svc_controller_manager)
    rest = svc_server.client()
    approved_client_request(rest, "alice", ["client auth"])

    def issued() -> str:
        return (rest.request("GET", f"{CSRS}/alice").json().get("status") or {}).get("certificate") or ""

    assert wait_for(issued, timeout=10)
    certificate = x509.load_pem_x509_certificate(base64.b64decode(issued()))
    assert certificate.issuer == ca.subject
    assert certificate.subject.rfc4514_string() == "CN=alice,O=dev"
    certificate.verify_directly_issued_by(ca)


def test_an_approved_request_the_signer_refuses_gets_upstreams_failed_condition_and_no_certificate(
    tmp_path: Path, svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    signing_with_a_new_ca(tmp_path, svc_server, svc_controller_manager)
    rest = svc_server.client()
    approved_client_request(rest, "server", ["server auth"])

    def conditions() -> dict[str, dict]:
        status = rest.request("GET", f"{CSRS}/server").json().get("status") or {}
        return {c["type"]: c for c in status.get("conditions") or []}

    assert wait_for(lambda: "Failed" in conditions(), timeout=10)
    failed = conditions()["Failed"]
    assert (failed["status"], failed["reason"]) == ("True", "SignerValidationFailure")
    assert failed["message"] == "invalid usage for client certificate: server auth"
    assert "certificate" not in rest.request("GET", f"{CSRS}/server").json()["status"]


def test_a_kubelet_client_request_is_auto_approved_and_signed(
    tmp_path: Path, svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    cert_file, key_file, ca = make_ca(tmp_path)
    svc_controller_manager(
        svc_server,
        "--controllers=csrapproving,csrsigning",
        f"--cluster-signing-svclet-client-cert-file={cert_file}",
        f"--cluster-signing-svclet-client-key-file={key_file}",
    )
    rest = svc_server.client()
    spec = {
        "request": make_request("system:node:n1", ("system:nodes",)),
        "signerName": "svc.io/svc-apiserver-client-svclet",
        "usages": ["digital signature", "key encipherment", "client auth"],
    }
    # The API server stamps the requester from the request's user, so the kubelet is impersonated.
    as_kubelet = {"Impersonate-User": "system:node:n1", "Impersonate-Group": "system:nodes"}
    created = rest.request("POST", CSRS, body={"metadata": {"name": "node-n1"}, "spec": spec}, headers=as_kubelet)
    assert created.status == 201

    def status() -> dict:
        return rest.request("GET", f"{CSRS}/node-n1").json().get("status") or {}

    assert wait_for(lambda: status().get("certificate"), timeout=10), status()
    [approved] = status()["conditions"]
    assert (approved["type"], approved["reason"]) == ("Approved", "AutoApproved")
    certificate = x509.load_pem_x509_certificate(base64.b64decode(status()["certificate"]))
    certificate.verify_directly_issued_by(ca)


def test_a_request_approved_by_kubectl_gets_a_certificate_of_the_cluster_ca_that_the_server_accepts(
    tmp_path: Path,
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
    kubectl_binary: str,
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    pki = server.data_dir / "pki"
    svc_controller_manager(
        server,
        "--controllers=csrsigning",
        f"--cluster-signing-cert-file={pki / 'client-ca.crt'}",
        f"--cluster-signing-key-file={pki / 'client-ca.key'}",
    )
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    key, request = make_key_and_request("alice", ("dev",))
    spec = {"request": request, "signerName": "kubernetes.io/kube-apiserver-client", "usages": ["client auth"]}
    manifest = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "spec": spec}
    kubectl.run("create", "-f", "-", stdin=json.dumps({**manifest, "metadata": {"name": "alice"}}))
    kubectl.run("certificate", "approve", "alice")

    def issued() -> str:
        return kubectl.run("get", "csr", "alice", "-o", "jsonpath={.status.certificate}").stdout

    assert wait_for(issued, timeout=10)
    reasons = kubectl.run("get", "csr", "alice", "-o", "jsonpath={.status.conditions[*].reason}").stdout
    assert reasons == "KubectlApprove"
    pem = base64.b64decode(issued())
    certificate = x509.load_pem_x509_certificate(pem)
    certificate.verify_directly_issued_by(x509.load_pem_x509_certificate((pki / "client-ca.crt").read_bytes()))
    # The API server takes the certificate as alice's credential.
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    kubeconfig = yaml.safe_load(server.kubeconfig.read_text())
    kubeconfig["users"][0]["user"] = {
        "client-certificate-data": base64.b64encode(pem).decode(),
        "client-key-data": base64.b64encode(key_pem).decode(),
    }
    as_alice = tmp_path / "alice.kubeconfig"
    as_alice.write_text(yaml.safe_dump(kubeconfig))
    whoami = Kubectl(kubectl_binary, as_alice).run("auth", "whoami", "-o", "json").stdout
    user = json.loads(whoami)["status"]["userInfo"]
    assert (user["username"], "dev" in user["groups"]) == ("alice", True)
