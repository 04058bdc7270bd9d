"""The key a PodCertificateRequest asks a certificate for, as upstream's `pkg/apis/certificates/validation`.

A kubelet gives the key either as a self-signed PKCS#10 stub request or (deprecated) as a PKIX public
key with a proof of possession (the pod uid signed with the key). Both are checked at create, the
signature included, so a signer never has to; the issued chain is later compared against the same key
(`requested_key`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any, Final

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

from svc.api.validation.engine import text
from svc.machinery.field_errors import OMITTED, FieldError, Rendered, invalid, too_long

MAX_KEY_SIZE: Final = 10 * 1024
PKIX: Final = "spec.pkixPublicKey"
PROOF: Final = "spec.proofOfPossession"
STUB: Final = "spec.stubPKCS10Request"
_UNVERIFIED: Final = "could not verify proof-of-possession signature"
_NOT_PKIX: Final = "must be a valid PKIX-serialized public key"


def go_bytes(data: bytes) -> Rendered:
    """A byte slice as Go's `%#v` prints it in a field error (`[]byte{0x30, 0x2a}`)."""
    return Rendered("[]byte{" + ", ".join(f"0x{byte:x}" for byte in data) + "}")


def decoded(obj: Any, path: str) -> bytes:
    """A `byte` field's content (JSON carries it base64-encoded); undecodable text reads as no bytes."""
    value = text(obj, path)
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return b""


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
    for path in (PKIX, PROOF):
        if text(obj, path):
            return [invalid(path, OMITTED, f"must be empty when {STUB} is set")]
    if len(stub) > MAX_KEY_SIZE:
        return [too_long(STUB, MAX_KEY_SIZE)]
    try:
        request = x509.load_der_x509_csr(stub)
        key = request.public_key()
    except (ValueError, UnsupportedAlgorithm):
        return [invalid(STUB, OMITTED, "must be a valid PKCS#10 certificate request")]
    errors = _key_errors(key, STUB, stub)
    if not errors and not request.is_signature_valid:
        errors.append(invalid(STUB, OMITTED, "could not verify the certificate request signature"))
    return errors


def _possession_errors(obj: Any) -> list[FieldError]:
    public, proof = decoded(obj, PKIX), decoded(obj, PROOF)
    if len(public) > MAX_KEY_SIZE:
        return [too_long(PKIX, MAX_KEY_SIZE)]
    if len(proof) > MAX_KEY_SIZE:
        return [too_long(PROOF, MAX_KEY_SIZE)]
    try:
        key = serialization.load_der_public_key(public)
    except (ValueError, UnsupportedAlgorithm):
        return [invalid(PKIX, go_bytes(public), _NOT_PKIX)]
    errors = _key_errors(key, PKIX, public)
    if not errors and not _proof_holds(key, text(obj, "spec.podUID").encode(), proof):
        errors.append(invalid(PROOF, OMITTED, _UNVERIFIED))
    return errors


def key_errors(obj: Any) -> list[FieldError]:
    """The create-time checks of the request's key: its stub request when given, else its PKIX key and proof."""
    stub = decoded(obj, STUB)
    return _stub_errors(obj, stub) if stub else _possession_errors(obj)


def requested_key(obj: Any) -> tuple[Any, list[FieldError]]:
    """The public key a stored request asks for, or the error saying it cannot be read."""
    stub, public = decoded(obj, STUB), decoded(obj, PKIX)
    try:
        if stub:
            return x509.load_der_x509_csr(stub).public_key(), []
        return serialization.load_der_public_key(public), []
    except (ValueError, UnsupportedAlgorithm):
        return None, [invalid(PKIX, go_bytes(public), _NOT_PKIX)]
