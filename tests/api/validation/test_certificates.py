"""CertificateSigningRequest: a signed PEM request, known unique usages, a domain-prefixed signer name and a
lifetime of at least ten minutes, with upstream's (field, reason, detail)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.api.validation.support import assert_causes, causes, with_path
from tests.builtin_objects import OBJECTS

REQUIRED, INVALID, NOT_SUPPORTED = "FieldValueRequired", "FieldValueInvalid", "FieldValueNotSupported"
GROUP, KIND = "certificates.k8s.io", "CertificateSigningRequest"
CSR = {"metadata": {"name": "demo"}, **OBJECTS[("certificates.k8s.io/v1", KIND)]}


def _tampered_request() -> str:
    """A request whose signature does not match its content: the subject is swapped after signing."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "alice")])
    der = bytearray(
        x509.CertificateSigningRequestBuilder()
        .subject_name(name)
        .sign(key, hashes.SHA256())
        .public_bytes(serialization.Encoding.DER)
    )
    at = der.index(b"alice")
    der[at : at + 5] = b"malic"
    pem = x509.load_der_x509_csr(bytes(der)).public_bytes(serialization.Encoding.PEM)
    return base64.b64encode(pem).decode()


def test_valid_request_passes() -> None:
    assert causes(GROUP, KIND, CSR) == []


INVALID_OBJECTS = [
    (
        "request that is not PEM",
        with_path(CSR, "spec.request", base64.b64encode(b"hello").decode()),
        [("spec.request", INVALID, "PEM block type must be CERTIFICATE REQUEST")],
    ),
    (
        "request that is a certificate",
        with_path(
            CSR,
            "spec.request",
            base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").decode(),
        ),
        [("spec.request", INVALID, "PEM block type must be CERTIFICATE REQUEST")],
    ),
    (
        "request with a broken signature",
        with_path(CSR, "spec.request", _tampered_request()),
        [("spec.request", INVALID, "x509: ECDSA verification failure")],
    ),
    ("no usages", with_path(CSR, "spec.usages", []), [("spec.usages", REQUIRED, "Required value")]),
    (
        "unknown usage",
        with_path(CSR, "spec.usages", ["world domination"]),
        [("spec.usages[0]", NOT_SUPPORTED, 'Unsupported value: "world domination": supported values: "any"')],
    ),
    (
        "repeated usage",
        with_path(CSR, "spec.usages", ["client auth", "client auth"]),
        [("spec.usages[1]", "FieldValueDuplicate", 'Duplicate value: "client auth"')],
    ),
    ("no signer", with_path(CSR, "spec.signerName", ...), [("spec.signerName", REQUIRED, "Required value")]),
    (
        "signer without a path",
        with_path(CSR, "spec.signerName", "example.com"),
        [
            (
                "spec.signerName",
                INVALID,
                "must be a fully qualified domain and path of the form 'example.com/signer-name'",
            )
        ],
    ),
    (
        "signer domain of one label",
        with_path(CSR, "spec.signerName", "example/signer"),
        [("spec.signerName", INVALID, 'Invalid value: "example": should be a domain with at least two segments')],
    ),
    (
        "signer domain with an invalid label",
        with_path(CSR, "spec.signerName", "Example.com/signer"),
        [("spec.signerName", INVALID, 'validating label "Example": a lowercase RFC 1123 label must consist of')],
    ),
    (
        "lifetime under ten minutes",
        with_path(CSR, "spec.expirationSeconds", 599),
        [("spec.expirationSeconds", INVALID, "Invalid value: 599: may not specify a duration less than 600 seconds")],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [case[1:] for case in INVALID_OBJECTS], ids=[case[0] for case in INVALID_OBJECTS]
)
def test_invalid_request(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(GROUP, KIND, obj), expected)
