"""certificatesigningrequests/approval and /status: each changes only its part (issue 12 part 5)."""

from __future__ import annotations

import base64

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

CSRS = "/apis/certificates.svc/v1/certificatesigningrequests"


def certificate_request(common_name: str = "alice") -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return base64.b64encode(request.public_bytes(serialization.Encoding.PEM)).decode()


@pytest.fixture
def api(svc_server):
    client = svc_server.client()
    body = {
        "apiVersion": "certificates.svc/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "alice"},
        "spec": {
            "request": certificate_request(),
            "signerName": "example.com/signer",
            "usages": ["client auth"],
        },
    }
    created = client.request("POST", CSRS, body=body)
    assert created.status == 201, created.body
    return client


def _condition(kind: str, status: str = "True") -> dict:
    return {"type": kind, "status": status, "reason": "Test", "message": "by the test"}


def _approval(api, *conditions):
    csr = api.request("GET", f"{CSRS}/alice").json()
    csr.setdefault("status", {})["conditions"] = list(conditions)
    return api.request("PUT", f"{CSRS}/alice/approval", body=csr)


def test_approval_adds_the_condition_with_timestamps(api) -> None:
    answer = _approval(api, _condition("Approved"))
    assert answer.status == 200, answer.body
    (condition,) = api.request("GET", f"{CSRS}/alice").json()["status"]["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == ("Approved", "True", "Test")
    assert condition["lastUpdateTime"] and condition["lastTransitionTime"]


def test_approval_changes_nothing_but_the_conditions(api) -> None:
    csr = api.request("GET", f"{CSRS}/alice").json()
    csr["spec"]["usages"] = ["server auth"]
    csr["status"] = {"conditions": [_condition("Approved")], "certificate": base64.b64encode(b"x").decode()}
    assert api.request("PUT", f"{CSRS}/alice/approval", body=csr).status == 200
    stored = api.request("GET", f"{CSRS}/alice").json()
    assert stored["spec"]["usages"] == ["client auth"]
    assert "certificate" not in stored["status"]


@pytest.mark.parametrize(
    ("conditions", "message"),
    [
        (
            [_condition("Approved"), _condition("Denied")],
            'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
        ),
        ([_condition("Approved", "False")], 'status.conditions[0].status: Unsupported value: "False"'),
        ([_condition("Approved"), _condition("Approved")], 'status.conditions[1].type: Duplicate value: "Approved"'),
    ],
)
def test_invalid_approvals_are_422(api, conditions, message) -> None:
    answer = _approval(api, *conditions)
    assert answer.status == 422
    assert message in answer.json()["message"]


def test_an_approval_cannot_be_taken_back(api) -> None:
    assert _approval(api, _condition("Approved")).status == 200
    answer = _approval(api)
    assert answer.status == 422
    assert (
        'status.conditions: Forbidden: updates may not remove a condition of type "Approved"'
        in (answer.json()["message"])
    )


def test_status_sets_the_certificate_but_cannot_approve(api) -> None:
    csr = api.request("GET", f"{CSRS}/alice").json()
    csr["status"] = {"conditions": [_condition("Approved")]}
    refused = api.request("PUT", f"{CSRS}/alice/status", body=csr)
    assert refused.status == 422
    assert 'updates may not add a condition of type "Approved"' in refused.json()["message"]
    assert _approval(api, _condition("Approved")).status == 200
    pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    patch = {"status": {"certificate": base64.b64encode(pem.encode()).decode()}}
    answer = api.request("PATCH", f"{CSRS}/alice/status", body=patch, content_type="application/merge-patch+json")
    assert answer.status == 200, answer.body
    stored = api.request("GET", f"{CSRS}/alice").json()["status"]
    assert stored["certificate"] == patch["status"]["certificate"]
    assert [c["type"] for c in stored["conditions"]] == ["Approved"]


def test_a_certificate_once_set_cannot_change(api) -> None:
    _approval(api, _condition("Approved"))
    first = {"status": {"certificate": base64.b64encode(b"one").decode()}}
    api.request("PATCH", f"{CSRS}/alice/status", body=first, content_type="application/merge-patch+json")
    second = {"status": {"certificate": base64.b64encode(b"two").decode()}}
    answer = api.request("PATCH", f"{CSRS}/alice/status", body=second, content_type="application/merge-patch+json")
    assert answer.status == 422
    assert "updates may not modify existing certificate content" in answer.json()["message"]
