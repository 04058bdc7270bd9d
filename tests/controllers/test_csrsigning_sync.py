"""The CSR signing controller's sync over seeded caches, with a throwaway CA."""

from __future__ import annotations

import asyncio
import base64
import datetime
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from svc.controllers.csr_rules import CertificateAuthority, SignerNames
from svc.controllers.csrsigning import CSRSigningController
from tests.controllers.csr_fixtures import make_ca, make_request
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
PATH = "/apis/certificates.svc/v1/certificatesigningrequests/req/status"
APPROVED = {"type": "Approved", "status": "True", "reason": "Approved"}
KUBELET_CLIENT = "svc.io/svc-apiserver-client-svclet"


def csr(request: str, signer: str, usages: list[str], *, approved: bool = True, **spec: Any) -> Obj:
    status = {"conditions": [APPROVED]} if approved else {}
    body = {"request": request, "signerName": signer, "usages": usages, **spec}
    return {"metadata": {"name": "req"}, "spec": body, "status": status}


def controller_with(tmp_path: Path, *requests: Obj) -> tuple[CSRSigningController, Any, x509.Certificate]:
    cert_file, key_file, ca = make_ca(tmp_path)
    context, client = make_context()
    signers = SignerNames.of(context.profile)
    authority = CertificateAuthority.load(str(cert_file), str(key_file))
    authorities = {name: authority for name in (signers.kubelet_client, signers.apiserver_client)}
    controller = CSRSigningController(context, authorities, ttl=24 * 3600.0)
    controller.requests.replace(list(requests))
    return controller, client, ca


def test_the_signer_names_follow_the_profile() -> None:
    context, _ = make_context("kubernetes")
    names = SignerNames.of(context.profile)
    assert names.kubelet_client == "kubernetes.io/kube-apiserver-client-kubelet"
    assert names.kubelet_serving == "kubernetes.io/kubelet-serving"
    assert SignerNames.of(make_context()[0].profile).kubelet_serving == "svc.io/svclet-serving"


def test_an_approved_kubelet_client_request_is_signed_for_its_requested_life(tmp_path: Path) -> None:
    async def scenario() -> None:
        request = make_request("system:node:n1", ("system:nodes",))
        usages = ["digital signature", "client auth"]
        controller, client, ca = controller_with(tmp_path, csr(request, KUBELET_CLIENT, usages, expirationSeconds=3600))
        await controller.sync("req")
        [(verb, path, body)] = client.calls
        assert (verb, path) == ("update", PATH)
        certificate = x509.load_pem_x509_certificate(base64.b64decode(body["status"]["certificate"]))
        assert certificate.issuer == ca.subject
        assert certificate.subject.rfc4514_string() == "CN=system:node:n1,O=system:nodes"
        now = datetime.datetime.fromtimestamp(controller.context.clock.wall(), datetime.UTC)
        assert certificate.not_valid_after_utc == now.replace(microsecond=0) + datetime.timedelta(hours=1)
        assert certificate.not_valid_before_utc == now.replace(microsecond=0) - datetime.timedelta(minutes=5)
        assert list(certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
            ExtendedKeyUsageOID.CLIENT_AUTH
        ]
        assert certificate.extensions.get_extension_for_class(x509.KeyUsage).value.digital_signature

    asyncio.run(scenario())


def test_a_request_the_signer_refuses_fails_with_upstreams_message(tmp_path: Path) -> None:
    async def scenario() -> None:
        request = make_request("system:node:n1", ("someone",))
        controller, client, _ = controller_with(
            tmp_path, csr(request, KUBELET_CLIENT, ["digital signature", "client auth"])
        )
        await controller.sync("req")
        failed = client.calls[0][2]["status"]["conditions"][-1]
        assert (failed["type"], failed["reason"]) == ("Failed", "SignerValidationFailure")
        assert failed["message"] == "subject organization is not system:nodes"
        assert "certificate" not in client.calls[0][2]["status"]

    asyncio.run(scenario())


def test_unapproved_already_issued_and_unknown_signer_requests_are_left_alone(tmp_path: Path) -> None:
    async def scenario() -> None:
        request = make_request("alice")
        controller, client, _ = controller_with(
            tmp_path, csr(request, "svc.io/svc-apiserver-client", ["client auth"], approved=False)
        )
        await controller.sync("req")
        controller.requests.replace([csr(request, "example.com/other", ["client auth"])])
        await controller.sync("req")
        issued = csr(request, "svc.io/svc-apiserver-client", ["client auth"])
        issued["status"]["certificate"] = "eA=="
        controller.requests.replace([issued])
        await controller.sync("req")
        assert client.calls == []

    asyncio.run(scenario())


def test_an_apiserver_client_request_without_client_auth_is_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        request = make_request("alice")
        controller, client, _ = controller_with(tmp_path, csr(request, "svc.io/svc-apiserver-client", ["server auth"]))
        await controller.sync("req")
        assert (
            client.calls[0][2]["status"]["conditions"][-1]["message"]
            == "invalid usage for client certificate: server auth"
        )

    asyncio.run(scenario())
