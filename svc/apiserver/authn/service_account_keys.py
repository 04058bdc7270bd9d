"""Keys of service-account tokens: PEM loading, the quick start's generated key, key ids, JWKs.

A key id is derived from the public key as upstream derives it (SHA-256 of the PKIX DER, unpadded
base64url), so a token signed here names the same `kid` an upstream server would give the same key,
and a verifier matches it against `/openid/v1/jwks`. ECDSA keys sign with the algorithm of their
curve (ES256/384/512), RSA keys with RS256, as upstream.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509 import load_pem_x509_certificates

from svc.private_files import tighten, write_private

PrivateKeyType = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
PublicKeyType = rsa.RSAPublicKey | ec.EllipticCurvePublicKey
_CURVE_ALGORITHMS = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}
_CURVE_NAMES = {"secp256r1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"}
QUICK_START_KEY = "service-account.key"


class KeyFileError(ValueError):
    pass


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _int(value: int, size: int | None = None) -> str:
    length = size if size is not None else max(1, (value.bit_length() + 7) // 8)
    return _b64(value.to_bytes(length, "big"))


def key_id(key: PublicKeyType) -> str:
    der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return _b64(hashlib.sha256(der).digest())


def algorithm(key: PublicKeyType) -> str:
    if isinstance(key, rsa.RSAPublicKey):
        return "RS256"
    return _CURVE_ALGORITHMS[key.curve.name]


@dataclass(frozen=True)
class PublicKey:
    key: PublicKeyType
    kid: str
    alg: str

    @classmethod
    def of(cls, key: PublicKeyType) -> PublicKey:
        return cls(key, key_id(key), algorithm(key))

    def jwk(self) -> dict[str, Any]:
        """The key as a JSON Web Key, in the members upstream publishes."""
        if isinstance(self.key, rsa.RSAPublicKey):
            numbers = self.key.public_numbers()
            return {
                "use": "sig",
                "kty": "RSA",
                "kid": self.kid,
                "alg": self.alg,
                "n": _int(numbers.n),
                "e": _int(numbers.e),
            }
        ec_numbers = self.key.public_numbers()
        size = (self.key.curve.key_size + 7) // 8
        return {
            "use": "sig",
            "kty": "EC",
            "kid": self.kid,
            "crv": _CURVE_NAMES[self.key.curve.name],
            "alg": self.alg,
            "x": _int(ec_numbers.x, size),
            "y": _int(ec_numbers.y, size),
        }


@dataclass(frozen=True)
class PrivateKey:
    key: PrivateKeyType
    public: PublicKey


def _supported(key: Any, path: str) -> None:
    if isinstance(key, rsa.RSAPrivateKey | rsa.RSAPublicKey):
        return
    if isinstance(key, ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) and key.curve.name in _CURVE_ALGORITHMS:
        return
    raise KeyFileError(
        f'failed to parse key file "{path}": unsupported key type, must be RSA or ECDSA (P-256, P-384, P-521)'
    )


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise KeyFileError(f'failed to read key file "{path}": {error.strerror}') from None


def _pem_blocks(data: bytes) -> list[bytes]:
    blocks: list[bytes] = []
    for chunk in data.split(b"-----BEGIN ")[1:]:
        end = chunk.find(b"-----END ")
        tail = chunk.find(b"-----", end + 9) if end >= 0 else -1
        if tail >= 0:
            blocks.append(b"-----BEGIN " + chunk[: tail + 5] + b"\n")
    return blocks


def load_public_keys(path: str) -> list[PublicKey]:
    """Every key of a PEM file (`--service-account-key-file`): public keys, private keys (their public
    half), or certificates (their key), as upstream's key reader accepts."""
    data = _read(path)
    keys: list[PublicKey] = []
    for block in _pem_blocks(data):
        key: Any = None
        for loader in (serialization.load_pem_public_key, _private_loader):
            try:
                key = loader(block)
                break
            except (ValueError, TypeError):
                continue
        if key is None and b"CERTIFICATE" in block.split(b"\n", 1)[0]:
            try:
                key = load_pem_x509_certificates(block)[0].public_key()
            except ValueError:
                key = None
        if key is None:
            continue
        _supported(key, path)
        public = key.public_key() if hasattr(key, "private_bytes") else key
        keys.append(PublicKey.of(public))
    if not keys:
        raise KeyFileError(
            f'failed to parse key file "{path}": data does not contain any valid RSA or ECDSA public keys'
        )
    return keys


def _private_loader(block: bytes) -> Any:
    return serialization.load_pem_private_key(block, password=None)


def load_private_key(path: str) -> PrivateKey:
    """The signing key (`--service-account-signing-key-file`): one PEM RSA or ECDSA private key."""
    data = _read(path)
    for block in _pem_blocks(data):
        try:
            key = _private_loader(block)
        except (ValueError, TypeError):
            continue
        _supported(key, path)
        return PrivateKey(key, PublicKey.of(key.public_key()))
    raise KeyFileError(
        f'failed to parse service-account-signing-key-file "{path}": '
        "data does not contain a valid RSA or ECDSA private key"
    )


def ensure_signing_key(directory: Path) -> Path:
    """The quick start's signing key: an ECDSA P-256 key in the PKI directory, generated once and
    reused on restart (tokens issued before a restart stay valid)."""
    path = directory / QUICK_START_KEY
    tighten(path)
    if not path.exists():
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        write_private(path, pem)
    return path
