"""CertificateSigningRequest on create and update (`pkg/apis/certificates/validation`): the request is a
PEM CSR whose signature verifies, usages are known and unique, the signer name is a domain-prefixed
path, and a requested lifetime is at least ten minutes.

The approval and status subresources keep their own rules in `svc/api/kinds/certificates.py`.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from svc.api.validation.engine import Check, KindRules, items, lookup, text
from svc.machinery.field_errors import FieldError, duplicate, invalid, not_supported, required, too_long
from svc.machinery.gotext import quote
from svc.machinery.validation import is_dns1123_label, is_dns1123_subdomain

USAGES: Final = frozenset(
    (
        "signing",
        "digital signature",
        "content commitment",
        "key encipherment",
        "key agreement",
        "data encipherment",
        "cert sign",
        "crl sign",
        "encipher only",
        "decipher only",
        "any",
        "server auth",
        "client auth",
        "code signing",
        "email protection",
        "s/mime",
        "ipsec end system",
        "ipsec tunnel",
        "ipsec user",
        "timestamping",
        "ocsp signing",
        "microsoft sgc",
        "netscape sgc",
    )
)
_PEM_TYPE: Final = "PEM block type must be CERTIFICATE REQUEST"
_MIN_EXPIRATION: Final = 600
_SUBDOMAIN_MAX: Final = 253
_LABEL_MAX: Final = 63


def _request_error(encoded: str) -> str | None:
    """Why the request is not a signed PEM CSR (upstream's `ParseCSR` then `CheckSignature`), or None."""
    try:
        pem = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return _PEM_TYPE
    begin = pem.find(b"-----BEGIN CERTIFICATE REQUEST-----")
    if begin < 0 or b"-----END CERTIFICATE REQUEST-----" not in pem[begin:]:
        return _PEM_TYPE
    try:
        request = x509.load_pem_x509_csr(pem[begin:])
    except ValueError as error:
        return f"x509: malformed certificate request: {error}"
    if request.is_signature_valid:
        return None
    if isinstance(request.public_key(), ec.EllipticCurvePublicKey):
        return "x509: ECDSA verification failure"
    return "crypto/rsa: verification error"


def signer_name_errors(name: str, path: str) -> list[FieldError]:
    """Upstream's `ValidateSignerName`: 'example.com/signer-name' with DNS labels and subdomain components."""
    if not name:
        return [required(path)]
    domain, slash, rest = name.partition("/")
    if not slash:
        return [invalid(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")]
    errors = [too_long(path, _SUBDOMAIN_MAX)] if len(domain) > _SUBDOMAIN_MAX else []
    labels = domain.split(".")
    for label in labels:
        messages = is_dns1123_label(label)
        if messages:
            errors += [invalid(path, domain, f"validating label {quote(label)}: {m}") for m in messages]
            break
    if len(labels) < 2:
        errors.append(invalid(path, domain, "should be a domain with at least two segments separated by dots"))
    for component in rest.split("/"):
        errors += [
            invalid(path, rest, f"validating component {quote(component)}: {m}")
            for m in is_dns1123_subdomain(component)
        ]
    if len(rest) > _SUBDOMAIN_MAX + _LABEL_MAX + 1:
        errors.append(too_long(path, _SUBDOMAIN_MAX + _LABEL_MAX + 1))
    return errors


def _request(obj: Any, _: str) -> list[FieldError]:
    encoded = lookup(obj, "spec.request")
    problem = _request_error(encoded) if isinstance(encoded, str) and encoded else _PEM_TYPE
    return [invalid("spec.request", encoded or "", problem)] if problem else []


def _usages(obj: Any, _: str) -> list[FieldError]:
    usages = items(lookup(obj, "spec.usages"))
    errors = [] if usages else [required("spec.usages")]
    ordered = sorted(USAGES)
    for index, usage in enumerate(usages):
        if usage not in USAGES:
            errors.append(not_supported(f"spec.usages[{index}]", usage, ordered))
    seen: set[Any] = set()
    for index, usage in enumerate(usages):
        if usage in seen:
            errors.append(duplicate(f"spec.usages[{index}]", usage))
        seen.add(usage)
    return errors


def _signer_and_expiration(obj: Any, _: str) -> list[FieldError]:
    errors = signer_name_errors(text(obj, "spec.signerName"), "spec.signerName")
    seconds = lookup(obj, "spec.expirationSeconds")
    if isinstance(seconds, int) and seconds < _MIN_EXPIRATION:
        detail = "may not specify a duration less than 600 seconds (10 minutes)"
        errors.append(invalid("spec.expirationSeconds", seconds, detail))
    return errors


CERTIFICATE_SIGNING_REQUEST = KindRules(create=(Check(_request), Check(_usages), Check(_signer_and_expiration)))

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("certificates.k8s.io", "CertificateSigningRequest"): CERTIFICATE_SIGNING_REQUEST,
}
