"""ClusterTrustBundle (certificates.k8s.io), as upstream's `pkg/apis/certificates/validation`.

A bundle of a signer is named with the signer name as prefix, slashes written as colons
(`example.com:foo:abc`), so its name is checked here against its own `spec.signerName` rather than by
the generic name rule; the bundle is a list of PEM CA certificates.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Final

from cryptography import x509

from svc.api.validation.certificates import signer_name_errors
from svc.api.validation.engine import Check, KindRules, UpdateCheck, lookup, text
from svc.machinery.field_errors import FieldError, invalid, too_long
from svc.machinery.validation import name_is_dns_subdomain

MAX_TRUST_BUNDLE_SIZE: Final = 1024 * 1024
_OMITTED: Final = "<value omitted>"
_PEM_BLOCK: Final = re.compile(
    r"-----BEGIN (?P<type>[^-\r\n]*)-----\r?\n(?P<body>.*?)-----END (?P=type)-----[ \t]*(\r?\n|$)", re.DOTALL
)


def bundle_name_errors(name: str, signer_name: str) -> list[str]:
    """Upstream's `ValidateClusterTrustBundleName` for a bundle of `signer_name` (or of none)."""
    if not signer_name:
        if ":" in name:
            return ['ClusterTrustBundle without signer name must not have ":" in its name']
        return name_is_dns_subdomain(name, False)
    prefix = signer_name.replace("/", ":") + ":"
    if not name.startswith(prefix):
        return [f"ClusterTrustBundle for signerName {signer_name} must be named with prefix {prefix}"]
    return name_is_dns_subdomain(name.removeprefix(prefix), False)


def _name(obj: Any, _: str) -> list[FieldError]:
    name = text(obj, "metadata.name")
    if not name:
        return []
    return [
        invalid("metadata.name", name, message) for message in bundle_name_errors(name, text(obj, "spec.signerName"))
    ]


def _block_error(index: int, kind: str, body: str) -> str | None:
    if kind != "CERTIFICATE":
        return f"entry {index} has bad block type: {kind}"
    if ":" in body.split("\n", 1)[0]:
        return f"entry {index} has PEM block headers"
    try:
        certificate = x509.load_der_x509_certificate(base64.b64decode("".join(body.split()), validate=True))
        constraints = certificate.extensions.get_extension_for_class(x509.BasicConstraints).value
    except x509.ExtensionNotFound:
        return f"entry {index} does not have the CA bit set"
    except (ValueError, binascii.Error):
        return f"entry {index} does not parse as X.509"
    return None if constraints.ca else f"entry {index} does not have the CA bit set"


def _trust_bundle(obj: Any, _: str) -> list[FieldError]:
    """Upstream's `validateTrustBundle`: PEM CA certificates only, at least one, nothing after them."""
    path, bundle = "spec.trustBundle", text(obj, "spec.trustBundle")
    if len(bundle.encode()) > MAX_TRUST_BUNDLE_SIZE:
        return [too_long(path, MAX_TRUST_BUNDLE_SIZE)]
    errors: list[FieldError] = []
    seen: dict[str, list[int]] = {}
    position = 0
    for index, block in enumerate(_PEM_BLOCK.finditer(bundle)):
        position = block.end()
        message = _block_error(index, block["type"], block["body"])
        if message:
            errors.append(invalid(path, _OMITTED, message))
        else:
            seen.setdefault("".join(block["body"].split()), []).append(index)
    if not seen and not errors:
        errors.append(invalid(path, _OMITTED, "at least one trust anchor must be provided"))
    if bundle[position:].strip():
        errors.append(invalid(path, _OMITTED, "contains trailing data"))
    for indices in seen.values():
        if len(indices) > 1:
            shown = "[" + " ".join(map(str, indices)) + "]"
            errors.append(invalid(path, _OMITTED, f"duplicate trust anchor (indices {shown})"))
    return errors


def _signer_name(obj: Any, _: str) -> list[FieldError]:
    signer = text(obj, "spec.signerName")
    return signer_name_errors(signer, "spec.signerName") if signer else []


def _signer_fixed(new: Any, old: Any, _: str) -> list[FieldError]:
    if lookup(new, "spec.signerName") != lookup(old, "spec.signerName"):
        return [invalid("spec.signerName", text(new, "spec.signerName"), "changing signerName is forbidden")]
    return []


def any_name(_name: str, _prefix: bool) -> list[str]:
    """The generic name rule is replaced by `_name`, which needs the object's signer name."""
    return []


CLUSTER_TRUST_BUNDLE = KindRules(
    create=(Check(_name), Check(_signer_name), Check(_trust_bundle)),
    update=(UpdateCheck(_signer_fixed),),
)

RULES: Final[dict[tuple[str, str], KindRules]] = {("certificates.k8s.io", "ClusterTrustBundle"): CLUSTER_TRUST_BUNDLE}
