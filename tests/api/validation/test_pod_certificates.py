"""PodCertificateRequest: identities, lifetime cap, key and proof of possession on create; a frozen spec;
the status moves once to a terminal condition, and an issued chain must fit the key and the times."""

from __future__ import annotations

import base64
import copy
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa, utils
from cryptography.x509.oid import NameOID

from svc.api.brand import SVC
from svc.api.validation import rules_for
from svc.testing.harness import RunningServer
from tests.api.validation.support import assert_causes, causes, with_path

GROUP, KIND = "certificates.k8s.io", "PodCertificateRequest"
REQUIRED, INVALID, NOT_SUPPORTED = "FieldValueRequired", "FieldValueInvalid", "FieldValueNotSupported"
POD_UID = "0f4a6d0e-8c52-4a43-9a57-7d0c1f3c2b11"
KEY = ed25519.Ed25519PrivateKey.generate()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _pkix(key: Any) -> str:
    return _b64(
        key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    )


def request(*, signer: str = "example.com/pods", key: Any = KEY, proof: bytes | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "certificates.svc/v1beta1",
        "kind": KIND,
        "metadata": {"name": "pcr"},
        "spec": {
            "signerName": signer,
            "podName": "web-0",
            "podUID": POD_UID,
            "serviceAccountName": "default",
            "serviceAccountUID": "4c6c9b7e-1f0e-4e53-8d1c-6a0b8f5f0c21",
            "nodeName": "node-1",
            "nodeUID": "8a1e0d6f-2b4c-4f7e-9d3a-5c2b1a0f9e87",
            "maxExpirationSeconds": 86400,
            "pkixPublicKey": _pkix(key),
            "proofOfPossession": _b64(proof if proof is not None else KEY.sign(POD_UID.encode())),
        },
    }


PCR = request()


def test_a_request_with_an_ed25519_key_and_its_proof_passes() -> None:
    assert causes(GROUP, KIND, PCR) == []


def test_an_ecdsa_p256_key_with_a_proof_over_the_uid_digest_passes() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    digest = hashlib.sha256(POD_UID.encode()).digest()
    proof = key.sign(digest, ec.ECDSA(utils.Prehashed(hashes.SHA256())))
    assert causes(GROUP, KIND, request(key=key, proof=proof)) == []


def test_an_omitted_lifetime_cap_defaults_to_a_day() -> None:
    assert causes(GROUP, KIND, with_path(PCR, "spec.maxExpirationSeconds", ...)) == []


def _stub(key: Any) -> bytes:
    """An empty PKCS#10 request signed by `key`, as a kubelet makes one."""
    algorithm = None if isinstance(key, ed25519.Ed25519PrivateKey | ed448.Ed448PrivateKey) else hashes.SHA256()
    csr = x509.CertificateSigningRequestBuilder().subject_name(x509.Name([])).sign(key, algorithm)
    return csr.public_bytes(serialization.Encoding.DER)


def _with_stub(stub: bytes) -> dict[str, Any]:
    obj = with_path(with_path(PCR, "spec.pkixPublicKey", ...), "spec.proofOfPossession", ...)
    return with_path(obj, "spec.stubPKCS10Request", _b64(stub))


EXACTLY_ONE = "exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set"


def test_a_stub_pkcs10_request_replaces_key_and_proof() -> None:
    assert causes(GROUP, KIND, _with_stub(_stub(KEY))) == []
    assert causes(GROUP, KIND, _with_stub(_stub(ec.generate_private_key(ec.SECP521R1())))) == []


@pytest.mark.parametrize(
    "paths",
    [
        ("spec.pkixPublicKey", "spec.proofOfPossession"),  # neither
        ("spec.proofOfPossession",),  # a key without its proof
    ],
)
def test_the_deprecated_key_needs_its_proof_and_no_stub(paths: tuple[str, ...]) -> None:
    obj = PCR
    for path in paths:
        obj = with_path(obj, path, ...)
    assert_causes(causes(GROUP, KIND, obj), [("spec", INVALID, f"Invalid value: {EXACTLY_ONE}")])
    mixed = with_path(PCR, "spec.stubPKCS10Request", _b64(_stub(KEY)))
    assert_causes(causes(GROUP, KIND, mixed), [("spec", INVALID, f"Invalid value: {EXACTLY_ONE}")])


def test_a_stub_that_is_not_a_pkcs10_request_is_refused() -> None:
    assert_causes(
        causes(GROUP, KIND, _with_stub(b"\x01\x02")),
        [("spec.stubPKCS10Request", INVALID, "Invalid value: must be a valid PKCS#10 CSR")],
    )


def test_a_stub_with_a_broken_signature_is_refused() -> None:
    stub = bytearray(_stub(KEY))
    stub[-1] ^= 0xFF  # the last byte of the signature
    assert_causes(
        causes(GROUP, KIND, _with_stub(bytes(stub))),
        [("spec.stubPKCS10Request", INVALID, "Invalid value: invalid signature")],
    )


def test_stub_keys_outside_upstreams_list_are_refused() -> None:
    small_rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert_causes(
        causes(GROUP, KIND, _with_stub(_stub(small_rsa))),
        [("spec.stubPKCS10Request", INVALID, '"2048-bit modulus": RSA keys must have modulus size 3072 or 4096')],
    )
    assert_causes(
        causes(GROUP, KIND, _with_stub(_stub(ec.generate_private_key(ec.SECP224R1())))),
        [("spec.stubPKCS10Request", INVALID, '"curve P-224": elliptic public keys must use curve P256, P384, or P521')],
    )
    assert_causes(
        causes(GROUP, KIND, _with_stub(_stub(ed448.Ed448PrivateKey.generate()))),
        [("spec.stubPKCS10Request", INVALID, "Invalid value: unknown public key type; supported types are Ed25519")],
    )


def test_a_proof_signed_by_another_key_is_refused() -> None:
    other = ed25519.Ed25519PrivateKey.generate().sign(POD_UID.encode())
    assert_causes(
        causes(GROUP, KIND, request(proof=other)),
        [("spec.proofOfPossession", INVALID, "Invalid value: could not verify proof-of-possession signature")],
    )


def test_key_types_and_sizes_outside_upstreams_list_are_refused() -> None:
    small_rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    p224 = ec.generate_private_key(ec.SECP224R1())
    assert_causes(
        causes(GROUP, KIND, request(key=small_rsa)),
        [("spec.pkixPublicKey", INVALID, '"2048-bit modulus": RSA keys must have modulus size 3072 or 4096')],
    )
    assert_causes(
        causes(GROUP, KIND, request(key=p224)),
        [("spec.pkixPublicKey", INVALID, "elliptic public keys must use curve P256 or P384")],
    )


def test_a_key_that_is_not_pkix_is_refused() -> None:
    assert_causes(
        causes(GROUP, KIND, with_path(PCR, "spec.pkixPublicKey", _b64(b"\x01\x02"))),
        [
            (
                "spec.pkixPublicKey",
                INVALID,
                "Invalid value: []byte{0x1, 0x2}: must be a valid PKIX-serialized public key",
            )
        ],
    )


def test_identities_must_be_names_and_nonempty_bounded_uids() -> None:
    obj = with_path(with_path(PCR, "spec.podUID", ""), "spec.nodeName", "Node_1")
    obj = with_path(obj, "spec.serviceAccountUID", "u" * 129)
    assert_causes(
        causes(GROUP, KIND, obj)[:3],
        [
            ("spec.podUID", INVALID, 'Invalid value: "": must not be empty'),
            ("spec.serviceAccountUID", "FieldValueTooLong", "may not be more than 128 bytes"),
            ("spec.nodeName", INVALID, "a lowercase RFC 1123 subdomain"),
        ],
    )


def test_the_brands_own_signers_cap_the_lifetime_at_a_day_others_at_91_days() -> None:
    brand = with_path(request(signer="svc.io/kube-apiserver-client-pod"), "spec.maxExpirationSeconds", 90000)
    assert_causes(
        causes(GROUP, KIND, brand),
        [("spec.maxExpirationSeconds", INVALID, "Invalid value: 90000: must be in the range [3600, 86400]")],
    )
    assert causes(GROUP, KIND, with_path(PCR, "spec.maxExpirationSeconds", 90000)) == []
    assert_causes(
        causes(GROUP, KIND, with_path(PCR, "spec.maxExpirationSeconds", 600)),
        [("spec.maxExpirationSeconds", INVALID, "must be in the range [3600, 7862400]")],
    )


def test_user_annotation_keys_must_be_domain_prefixed() -> None:
    obj = with_path(PCR, "spec.unverifiedUserAnnotations", {"example.com/size": "large", "color": "blue"})
    assert_causes(
        causes(GROUP, KIND, obj),
        [("spec.unverifiedUserAnnotations", INVALID, 'must be a domain-prefixed key (such as "acme.io/foo")')],
    )


def test_the_spec_is_immutable() -> None:
    assert_causes(
        causes(GROUP, KIND, with_path(PCR, "spec.nodeName", "node-2"), old=PCR),
        [("spec", INVALID, "field is immutable")],
    )


# --- status ------------------------------------------------------------------------------------


def _chain(*, key: Any = KEY, lifetime: timedelta = timedelta(hours=2)) -> tuple[str, datetime, datetime]:
    ca = ec.generate_private_key(ec.SECP256R1())
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=1)
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "web-0")]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ca")]))
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(start)
        .not_valid_after(start + lifetime)
        .sign(ca, hashes.SHA256())
    )
    return leaf.public_bytes(serialization.Encoding.PEM).decode(), start, start + lifetime


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _issued(chain: str, start: datetime, end: datetime) -> dict[str, Any]:
    obj = copy.deepcopy(PCR)
    obj["status"] = {
        "conditions": [_condition("Issued")],
        "certificateChain": chain,
        "notBefore": _stamp(start),
        "notAfter": _stamp(end),
        "beginRefreshAt": _stamp(start + timedelta(hours=1)),
    }
    return obj


def _condition(kind: str, status: str = "True") -> dict[str, Any]:
    return {
        "type": kind,
        "status": status,
        "reason": "Done",
        "message": "",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }


def status_causes(new: dict[str, Any], old: dict[str, Any] = PCR) -> list[tuple[str, str, str]]:
    rules = rules_for(GROUP, KIND, SVC)
    assert rules is not None
    return [(e.field, e.reason, e.body()) for e in rules.validate_status_update(new, old)]


def test_issuing_a_certificate_for_the_requested_key_passes() -> None:
    assert status_causes(_issued(*_chain())) == []


def test_a_certificate_for_another_key_is_refused() -> None:
    other = ed25519.Ed25519PrivateKey.generate()
    assert_causes(
        status_causes(_issued(*_chain(key=other))),
        [("status.certificateChain", INVALID, "leaf certificate was not issued to the requested public key")],
    )


def test_a_lifetime_beyond_the_cap_is_refused() -> None:
    assert_causes(
        status_causes(_issued(*_chain(lifetime=timedelta(hours=25)))),
        [
            (
                "status.certificateChain",
                INVALID,
                "25h0m0s: leaf certificate lifetime must be <= spec.maxExpirationSeconds",
            )
        ],
    )


def test_not_before_must_match_the_certificate() -> None:
    chain, start, end = _chain()
    obj = _issued(chain, start, end)
    obj["status"]["notBefore"] = _stamp(start + timedelta(seconds=5))
    assert_causes(
        status_causes(obj),
        [("status.notBefore", INVALID, "must be set to the NotBefore time encoded in the leaf certificate")],
    )


def test_at_most_one_terminal_condition_and_only_known_types() -> None:
    obj = copy.deepcopy(PCR)
    obj["status"] = {"conditions": [_condition("Denied"), _condition("Failed"), _condition("Ready")]}
    assert_causes(
        status_causes(obj),
        [
            ("status.conditions[1].type", INVALID, 'There may be at most one condition with type "Issued"'),
            ("status.conditions[2].type", NOT_SUPPORTED, 'supported values: "Issued", "Denied", "Failed"'),
        ],
    )


def test_denying_carries_only_conditions() -> None:
    obj = copy.deepcopy(PCR)
    obj["status"] = {"conditions": [_condition("Denied")], "certificateChain": "x"}
    assert_causes(
        status_causes(obj),
        [("status", INVALID, "non-condition status fields must be empty when denying or failing")],
    )
    obj["status"].pop("certificateChain")
    assert status_causes(obj) == []


def test_the_status_is_frozen_once_terminal_and_before_it() -> None:
    issued = _issued(*_chain())
    changed = copy.deepcopy(issued)
    changed["status"]["beginRefreshAt"] = issued["status"]["notAfter"]
    assert_causes(
        status_causes(changed, old=issued),
        [("status", INVALID, "immutable after PodCertificateRequest is issued, denied, or failed")],
    )
    pending = with_path(PCR, "status", {"notBefore": "2026-01-01T00:00:00Z"})
    assert_causes(
        status_causes(pending),
        [("status", INVALID, 'status is immutable unless transitioning to "Issued", "Denied", or "Failed"')],
    )


def test_the_server_answers_an_unverifiable_proof_with_422(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory(
        "--feature-gates=PodCertificateRequest=true", "--runtime-config=certificates.k8s.io/v1beta1=true"
    )
    path = "/apis/certificates.svc/v1beta1/namespaces/default/podcertificaterequests"
    body = request(proof=ed25519.Ed25519PrivateKey.generate().sign(POD_UID.encode()))
    response = server.client().request("POST", path, body=body)
    assert response.status == 422, response.json()
    status = response.json()
    assert status["reason"] == "Invalid"
    assert status["details"]["causes"] == [
        {
            "reason": INVALID,
            "message": "Invalid value: could not verify proof-of-possession signature",
            "field": "spec.proofOfPossession",
        }
    ]
    assert server.client().request("POST", path, body=PCR).status == 201
