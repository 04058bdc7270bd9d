"""PodCertificateRequest (certificates.k8s.io/v1beta1), as upstream's `pkg/apis/certificates/validation`.

A kubelet asks a signer for a pod's certificate: the request names the pod, its service account and
node (names and uids), a lifetime cap (at most a day for the brand's own signers, 91 days for others)
and the key, either as a self-signed PKCS#10 stub request or (deprecated) as a PKIX public key with a
proof of possession (the pod uid signed with the key), verified here so a signer never has to. The
spec never changes after create. Through `/status` a signer moves the request to one terminal
condition (Issued, Denied or Failed), after which the status is frozen; an issued chain must start
with a certificate for the requested key whose validity matches `notBefore`/`notAfter`, began within
five minutes of the server's clock, lasts between an hour and the cap, with `beginRefreshAt` ten
minutes inside it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from datetime import UTC, datetime
from email.utils import parseaddr
from typing import Any, Final

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

from svc.api.brand import Profile
from svc.api.validation.certificates import signer_name_errors
from svc.api.validation.conditions import conditions_errors
from svc.api.validation.engine import Check, Immutable, KindRules, UpdateCheck, integer, lookup, mapping, text
from svc.machinery import wallclock
from svc.machinery.duration import format_duration
from svc.machinery.field_errors import OMITTED, FieldError, Rendered, invalid, not_supported, required, too_long
from svc.machinery.validation import is_dns1123_subdomain, name_is_dns_subdomain, validate_annotations

Obj = dict[str, Any]
MAX_KEY_SIZE: Final = 10 * 1024
MAX_CHAIN_SIZE: Final = 100 * 1024
MAX_UID_LENGTH: Final = 128
MIN_MAX_EXPIRATION: Final = 3600
MAX_MAX_EXPIRATION: Final = 91 * 86400
BRAND_MAX_MAX_EXPIRATION: Final = 86400
TERMINAL: Final = ("Issued", "Denied", "Failed")
SKEW_SECONDS: Final = 300
REFRESH_MARGIN: Final = 600
_PKIX: Final = "spec.pkixPublicKey"
_PROOF: Final = "spec.proofOfPossession"
_STUB: Final = "spec.stubPKCS10Request"
_CHAIN: Final = "status.certificateChain"
_REFRESH: Final = "status.beginRefreshAt"
_PEM: Final = re.compile(rb"-----BEGIN ([^-\r\n]*)-----\r?\n(.*?)-----END \1-----", re.DOTALL)
_UNVERIFIED: Final = "could not verify proof-of-possession signature"


def go_bytes(data: bytes) -> Rendered:
    """A byte slice as Go's `%#v` prints it in a field error (`[]byte{0x30, 0x2a}`)."""
    return Rendered("[]byte{" + ", ".join(f"0x{byte:x}" for byte in data) + "}")


def go_time(moment: datetime) -> Rendered:
    """A time as Go's `Time.String()` prints it in UTC."""
    return Rendered(moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S +0000 UTC"))


def _decoded(obj: Any, path: str) -> bytes:
    """A `byte` field's content (JSON carries it base64-encoded); undecodable text reads as no bytes."""
    value = text(obj, path)
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return b""


def is_brand_signer(name: str, profile: Profile) -> bool:
    """Upstream's `IsKubernetesSignerName`: the brand's own domain or one of its subdomains."""
    host = name.partition("/")[0]
    return host == profile.label_domain or host.endswith("." + profile.label_domain)


def _uid(obj: Any, path: str) -> list[FieldError]:
    value = text(obj, path)
    if not value:
        return [invalid(path, value, "must not be empty")]
    return [too_long(path, MAX_UID_LENGTH)] if len(value) > MAX_UID_LENGTH else []


def _name(obj: Any, path: str) -> list[FieldError]:
    value = text(obj, path)
    return [invalid(path, value, message) for message in name_is_dns_subdomain(value, False)]


def _user_annotations(obj: Any) -> list[FieldError]:
    path = "spec.unverifiedUserAnnotations"
    if lookup(obj, path) is None:
        return []
    annotations = {key: value for key, value in mapping(obj, path).items() if isinstance(value, str)}
    errors = validate_annotations(annotations, path)
    for key in sorted(annotations):
        prefix, slash, name = key.lower().partition("/")
        if not slash or not name or is_dns1123_subdomain(prefix):
            errors.append(invalid(path, key, 'must be a domain-prefixed key (such as "acme.io/foo")'))
    return errors


def _key_errors(key: Any, path: str, raw: bytes) -> list[FieldError]:
    """The key types and sizes upstream accepts (Ed25519, ECDSA P-256/384/521, RSA 3072/4096)."""
    if isinstance(key, ec.EllipticCurvePublicKey):
        if not isinstance(key.curve, ec.SECP256R1 | ec.SECP384R1 | ec.SECP521R1):
            curve = {"secp224r1": "P-224"}.get(key.curve.name, key.curve.name)
            return [invalid(path, f"curve {curve}", "elliptic public keys must use curve P256 or P384")]
        return []
    if isinstance(key, rsa.RSAPublicKey):
        bits = (key.key_size + 7) // 8 * 8
        if bits not in (3072, 4096):
            return [invalid(path, f"{bits}-bit modulus", "RSA keys must have modulus size 3072 or 4096")]
        return []
    if isinstance(key, ed25519.Ed25519PublicKey):
        return []
    return [invalid(path, go_bytes(raw), "unknown public key type; supported types are Ed25519, ECDSA, and RSA")]


def _proof_holds(key: Any, pod_uid: bytes, proof: bytes) -> bool:
    """The pod uid signed with the key: Ed25519 over the bytes, ECDSA (ASN.1) and RSA-PSS over their SHA-256."""
    digest = hashlib.sha256(pod_uid).digest()
    try:
        if isinstance(key, ed25519.Ed25519PublicKey):
            key.verify(proof, pod_uid)
        elif isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(proof, digest, ec.ECDSA(utils.Prehashed(hashes.SHA256())))
        else:
            pss = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=padding.PSS.AUTO)
            key.verify(proof, digest, pss, utils.Prehashed(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True


def _stub_errors(obj: Any, stub: bytes) -> list[FieldError]:
    """A stub PKCS#10 request replaces the public key and proof: it must be alone, parse, and verify."""
    for path in (_PKIX, _PROOF):
        if text(obj, path):
            return [invalid(path, OMITTED, f"must be empty when {_STUB} is set")]
    if len(stub) > MAX_KEY_SIZE:
        return [too_long(_STUB, MAX_KEY_SIZE)]
    try:
        request = x509.load_der_x509_csr(stub)
        key = request.public_key()
    except (ValueError, UnsupportedAlgorithm):
        return [invalid(_STUB, OMITTED, "must be a valid PKCS#10 certificate request")]
    errors = _key_errors(key, _STUB, stub)
    if not errors and not request.is_signature_valid:
        errors.append(invalid(_STUB, OMITTED, "could not verify the certificate request signature"))
    return errors


def _possession_errors(obj: Any) -> list[FieldError]:
    public, proof = _decoded(obj, _PKIX), _decoded(obj, _PROOF)
    if len(public) > MAX_KEY_SIZE:
        return [too_long(_PKIX, MAX_KEY_SIZE)]
    if len(proof) > MAX_KEY_SIZE:
        return [too_long(_PROOF, MAX_KEY_SIZE)]
    try:
        key = serialization.load_der_public_key(public)
    except (ValueError, UnsupportedAlgorithm):
        return [invalid(_PKIX, go_bytes(public), "must be a valid PKIX-serialized public key")]
    errors = _key_errors(key, _PKIX, public)
    if not errors and not _proof_holds(key, text(obj, "spec.podUID").encode(), proof):
        errors.append(invalid(_PROOF, OMITTED, _UNVERIFIED))
    return errors


def create_rules(profile: Profile) -> Check:
    """Upstream's `ValidatePodCertificateRequestCreate`, in its order (it stops at the first key problem)."""

    def validate(obj: Any, _: str) -> list[FieldError]:
        signer = text(obj, "spec.signerName")
        errors = signer_name_errors(signer, "spec.signerName")
        errors += _user_annotations(obj)
        errors += _name(obj, "spec.podName") + _uid(obj, "spec.podUID")
        errors += _name(obj, "spec.serviceAccountName") + _uid(obj, "spec.serviceAccountUID")
        errors += _name(obj, "spec.nodeName") + _uid(obj, "spec.nodeUID")
        seconds = integer(obj, "spec.maxExpirationSeconds")
        if seconds is None:
            return [*errors, required("spec.maxExpirationSeconds", "must be set")]
        ceiling = BRAND_MAX_MAX_EXPIRATION if is_brand_signer(signer, profile) else MAX_MAX_EXPIRATION
        if not MIN_MAX_EXPIRATION <= seconds <= ceiling:
            detail = f"must be in the range [{MIN_MAX_EXPIRATION}, {ceiling}]"
            errors.append(invalid("spec.maxExpirationSeconds", seconds, detail))
        stub = _decoded(obj, _STUB)
        return errors + (_stub_errors(obj, stub) if stub else _possession_errors(obj))

    return Check(validate)


# --- status --------------------------------------------------------------------------------------


def _conditions(obj: Obj) -> list[Obj]:
    conditions = (obj.get("status") or {}).get("conditions")
    return [c for c in conditions if isinstance(c, dict)] if isinstance(conditions, list) else []


def _in(obj: Obj, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in _conditions(obj))


def _condition_errors(new: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    known = 0
    for index, condition in enumerate(_conditions(new)):
        path = f"status.conditions[{index}]"
        kind = condition.get("type") or ""
        if kind not in TERMINAL:
            errors.append(not_supported(f"{path}.type", kind, TERMINAL))
            continue
        known += 1
        if known > 1:
            detail = 'There may be at most one condition with type "Issued", "Denied", or "Failed"'
            errors.append(invalid(f"{path}.type", kind, detail))
        if condition.get("status") != "True":
            errors.append(not_supported(f"{path}.status", condition.get("status") or "", ("True",)))
    return errors + conditions_errors((new.get("status") or {}).get("conditions"), "status.conditions")


def _frozen(new: Obj, expected: Any, detail: str) -> list[FieldError]:
    return [] if (new.get("status") or {}) == (expected or {}) else [invalid("status", OMITTED, detail)]


def _parse_time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def _blocks(chain: str) -> list[tuple[bytes, bytes]]:
    return [(kind, body) for kind, body in _PEM.findall(chain.encode())]


def _der(body: bytes) -> bytes:
    return base64.b64decode(b"".join(body.split()))


def _leaf_name_errors(leaf: x509.Certificate) -> list[FieldError]:
    try:
        names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    errors: list[FieldError] = []
    for name in names.get_values_for_type(x509.DNSName):
        if name == "":
            errors.append(invalid(_CHAIN, name, "leaf certificate should not contain empty DNSName"))
        if ".." in name:
            errors.append(invalid(_CHAIN, name, "leaf certificate's DNSName should not contain '..'"))
        if name.startswith(".") or name.endswith("."):
            errors.append(invalid(_CHAIN, name, "leaf certificate's DNSName should not start or end with '.'"))
    for address in names.get_values_for_type(x509.RFC822Name):
        if "@" not in parseaddr(address)[1]:
            errors.append(invalid(_CHAIN, address, "leaf certificate should not contain invalid EmailAddress"))
    return errors


def _issued_errors(new: Obj, old: Obj) -> list[FieldError]:
    status = new.get("status") or {}
    chain = status.get("certificateChain") if isinstance(status.get("certificateChain"), str) else ""
    if len(chain.encode()) > MAX_CHAIN_SIZE:
        return [too_long(_CHAIN, MAX_CHAIN_SIZE)]
    blocks = _blocks(chain)
    if not blocks:
        return [invalid(_CHAIN, chain, "issued certificate chain must contain at least one certificate")]
    if blocks[0][0] != b"CERTIFICATE":
        return [invalid(_CHAIN, chain, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")]
    try:
        leaf = x509.load_der_x509_certificate(_der(blocks[0][1]))
    except (ValueError, binascii.Error):
        return [invalid(_CHAIN, chain, "leaf certificate does not parse as valid X.509")]
    errors = _leaf_name_errors(leaf)
    public = _decoded(old, _STUB)
    try:
        wanted = (
            x509.load_der_x509_csr(public).public_key()
            if public
            else serialization.load_der_public_key(_decoded(old, _PKIX))
        )
    except (ValueError, UnsupportedAlgorithm):
        raw = _decoded(old, _PKIX)
        return [*errors, invalid(_PKIX, go_bytes(raw), "must be a valid PKIX-serialized public key")]
    if wanted != leaf.public_key():
        return [*errors, invalid(_CHAIN, chain, "leaf certificate was not issued to the requested public key")]
    stamps = {name: _parse_time(status.get(name)) for name in ("notBefore", "notAfter", "beginRefreshAt")}
    if stamps["notBefore"] is None:
        errors.append(required("status.notBefore", "must be present and consistent with the issued certificate"))
    if stamps["notAfter"] is None:
        errors.append(required("status.notAfter", "must be present and consistent with the issued certificate"))
    if stamps["beginRefreshAt"] is None:
        detail = "must be present and in the range [notbefore+10min, notafter-10min]"
        errors.append(required(_REFRESH, detail))
    if errors:
        return errors
    return _timing_errors(new, leaf, chain, blocks)


def _timing_errors(new: Obj, leaf: x509.Certificate, chain: str, blocks: list[tuple[bytes, bytes]]) -> list[FieldError]:
    status = new["status"]
    not_before, not_after = _parse_time(status["notBefore"]), _parse_time(status["notAfter"])
    refresh = _parse_time(status["beginRefreshAt"])
    assert not_before is not None and not_after is not None and refresh is not None
    if not_before != leaf.not_valid_before_utc:
        detail = "must be set to the NotBefore time encoded in the leaf certificate"
        return [invalid("status.notBefore", go_time(not_before), detail)]
    if abs(not_before.timestamp() - wallclock.now()) >= SKEW_SECONDS:
        detail = "must be set to within 5 minutes of kube-apiserver's current time"
        return [invalid("status.notBefore", go_time(not_before), detail)]
    if not_after != leaf.not_valid_after_utc:
        detail = "must be set to the NotAfter time encoded in the leaf certificate"
        return [invalid("status.notAfter", go_time(not_after), detail)]
    lifetime = (leaf.not_valid_after_utc - leaf.not_valid_before_utc).total_seconds()
    if lifetime < 3600:
        return [invalid(_CHAIN, Rendered(format_duration(lifetime)), "leaf certificate lifetime must be >= 1 hour")]
    cap = integer(new, "spec.maxExpirationSeconds") or 0
    if lifetime > cap:
        detail = f"leaf certificate lifetime must be <= spec.maxExpirationSeconds ({cap})"
        return [invalid(_CHAIN, Rendered(format_duration(lifetime)), detail)]
    if refresh.timestamp() < not_before.timestamp() + REFRESH_MARGIN:
        return [invalid(_REFRESH, go_time(refresh), "must be at least 10 minutes after status.notBefore")]
    if refresh.timestamp() > not_after.timestamp() - REFRESH_MARGIN:
        return [invalid(_REFRESH, go_time(refresh), "must be at least 10 minutes before status.notAfter")]
    for kind, body in blocks[1:]:
        if kind != b"CERTIFICATE":
            # upstream's text spells it so
            return [invalid(_CHAIN, chain, "issued certificate chain must consist entirely of CERTFICATE PEM blocks")]
        try:
            x509.load_der_x509_certificate(_der(body))
        except (ValueError, binascii.Error):
            return [invalid(_CHAIN, chain, "intermediate certificate does not parse as valid X.509")]
    return []


def _status_update(new: Obj, old: Obj, _: str) -> list[FieldError]:
    """Upstream's `ValidatePodCertificateRequestStatusUpdate` (the spec is the stored one by now)."""
    errors = _condition_errors(new)
    if errors:
        return errors
    if any(_in(old, kind) for kind in TERMINAL):
        return _frozen(new, old.get("status"), "immutable after PodCertificateRequest is issued, denied, or failed")
    if _in(new, "Denied") or _in(new, "Failed"):
        only_conditions = {"conditions": (new.get("status") or {}).get("conditions")}
        detail = "non-condition status fields must be empty when denying or failing the PodCertificateRequest"
        return _frozen(new, {k: v for k, v in only_conditions.items() if v}, detail)
    if _in(new, "Issued"):
        return _issued_errors(new, old)
    detail = 'status is immutable unless transitioning to "Issued", "Denied", or "Failed"'
    return _frozen(new, old.get("status"), detail)


def rules(profile: Profile) -> KindRules:
    return KindRules(
        create=(create_rules(profile),),
        update=(Immutable("spec", render=lambda _value: OMITTED),),
        revalidate_on_update=False,
        status=(UpdateCheck(_status_update),),
    )
