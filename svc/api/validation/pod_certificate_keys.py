"""The key a PodCertificateRequest asks a certificate for, as upstream's `pkg/apis/certificates/validation`.

A kubelet gives the key either as a self-signed PKCS#10 stub request (1.36) or (deprecated) as a PKIX
public key with a proof of possession (the pod uid signed with the key), exactly one of the two. Both are
checked at create, the signature included, so a signer never has to; the issued chain is later compared
against the same key (`requested_key`). Keys are read as Go's x509 parsers read them: a key type they do
not know parses without a key, an elliptic curve they do not know does not parse.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any, Final

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa, utils, x448

from svc.api.validation.engine import text
from svc.machinery.field_errors import OMITTED, FieldError, Rendered, invalid, too_long

MAX_KEY_SIZE: Final = 10 * 1024
PKIX: Final = "spec.pkixPublicKey"
PROOF: Final = "spec.proofOfPossession"
STUB: Final = "spec.stubPKCS10Request"
_UNVERIFIED: Final = "could not verify proof-of-possession signature"
_NOT_PKIX: Final = "must be a valid PKIX-serialized public key"
_NOT_PKCS10: Final = "must be a valid PKCS#10 CSR"


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


_GO_CURVES: Final = {"secp224r1": "P-224", "secp256r1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"}
"""The elliptic curves Go's x509 parsers know, by their names in Go; a key on another does not parse."""


def _key_errors(key: Any, path: str, *, curves: str, unknown: Any) -> list[FieldError]:
    """The key types and sizes upstream accepts (Ed25519, ECDSA P-256/384/521, RSA 3072/4096); `curves`
    is how the refusal of another curve names the accepted ones (the deprecated field's text predates
    P-521), `unknown` the value shown for a key of another type."""
    if isinstance(key, ec.EllipticCurvePublicKey):
        if not isinstance(key.curve, ec.SECP256R1 | ec.SECP384R1 | ec.SECP521R1):
            detail = f"elliptic public keys must use curve {curves}"
            return [invalid(path, f"curve {_GO_CURVES[key.curve.name]}", detail)]
        return []
    if isinstance(key, rsa.RSAPublicKey):
        bits = (key.key_size + 7) // 8 * 8
        if bits not in (3072, 4096):
            return [invalid(path, f"{bits}-bit modulus", "RSA keys must have modulus size 3072 or 4096")]
        return []
    if isinstance(key, ed25519.Ed25519PublicKey):
        return []
    return [invalid(path, unknown, "unknown public key type; supported types are Ed25519, ECDSA, and RSA")]


def _curve_known_to_go(key: Any) -> Any:
    if isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name not in _GO_CURVES:
        raise ValueError(f"unsupported elliptic curve {key.curve.name}")
    return key


def _csr_key(request: x509.CertificateSigningRequest) -> Any:
    """A stub request's key as Go's `ParseCertificateRequest` reads it: a key of a type Go does not know
    parses as none (refused as unknown); one on a curve Go does not know fails to parse (ValueError)."""
    try:
        return _curve_known_to_go(request.public_key())
    except UnsupportedAlgorithm:
        return None


def _pkix_key(raw: bytes) -> Any:
    """A key as Go's `ParsePKIXPublicKey` reads it: a type or curve Go does not know fails (ValueError)."""
    try:
        key = serialization.load_der_public_key(raw)
    except UnsupportedAlgorithm as error:
        raise ValueError(str(error)) from None
    if isinstance(key, ed448.Ed448PublicKey | x448.X448PublicKey):
        raise ValueError("unknown public key algorithm")
    return _curve_known_to_go(key)


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


def _stub_errors(stub: bytes) -> list[FieldError]:
    """Upstream's `validateStubPKCS10Request`: the request's contents are not judged, only its size, its
    key, and its signature by that key."""
    if len(stub) > MAX_KEY_SIZE:
        return [too_long(STUB, MAX_KEY_SIZE)]
    try:
        request = x509.load_der_x509_csr(stub)
        key = _csr_key(request)
    except ValueError:
        return [invalid(STUB, OMITTED, _NOT_PKCS10)]
    errors = _key_errors(key, STUB, curves="P256, P384, or P521", unknown=OMITTED)
    if not errors and not request.is_signature_valid:
        errors.append(invalid(STUB, OMITTED, "invalid signature"))
    return errors


def _possession_errors(obj: Any, public: bytes, proof: bytes) -> list[FieldError]:
    """Upstream's `validateDeprecatedPKIXPublicKey`."""
    if len(public) > MAX_KEY_SIZE:
        return [too_long(PKIX, MAX_KEY_SIZE)]
    if len(proof) > MAX_KEY_SIZE:
        return [too_long(PROOF, MAX_KEY_SIZE)]
    try:
        key = _pkix_key(public)
    except ValueError:
        return [invalid(PKIX, go_bytes(public), _NOT_PKIX)]
    errors = _key_errors(key, PKIX, curves="P256 or P384", unknown=go_bytes(public))
    if not errors and not _proof_holds(key, text(obj, "spec.podUID").encode(), proof):
        errors.append(invalid(PROOF, OMITTED, _UNVERIFIED))
    return errors


def key_errors(obj: Any) -> list[FieldError]:
    """The create-time checks of the request's key: a stub PKCS#10 request alone, or the deprecated PKIX
    key with its proof of possession, never a mix."""
    stub, public, proof = decoded(obj, STUB), decoded(obj, PKIX), decoded(obj, PROOF)
    if stub and not public and not proof:
        return _stub_errors(stub)
    if public and proof and not stub:
        return _possession_errors(obj, public, proof)
    return [
        invalid("spec", OMITTED, "exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set")
    ]


def requested_key(obj: Any) -> tuple[Any, list[FieldError]]:
    """The public key a stored request asks for, or the error saying it cannot be read."""
    stub, public = decoded(obj, STUB), decoded(obj, PKIX)
    if stub:
        try:
            return _csr_key(x509.load_der_x509_csr(stub)), []
        except ValueError:
            return None, [invalid(STUB, OMITTED, _NOT_PKCS10)]
    try:
        return _pkix_key(public), []
    except ValueError:
        return None, [invalid(PKIX, OMITTED, _NOT_PKIX)]
