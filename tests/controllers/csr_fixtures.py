"""A throwaway CA and certificate requests for the CSR controllers' tests."""

from __future__ import annotations

import base64
import datetime
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def make_ca(directory: Path) -> tuple[Path, Path, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test-ca")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "ca.crt", directory / "ca.key"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_file, key_file, certificate


def make_request(common_name: str, organizations: tuple[str, ...] = (), dns: tuple[str, ...] = ()) -> str:
    """A base64 PEM CSR, as `spec.request` carries it."""
    return make_key_and_request(common_name, organizations, dns)[1]


def make_key_and_request(
    common_name: str, organizations: tuple[str, ...] = (), dns: tuple[str, ...] = ()
) -> tuple[ec.EllipticCurvePrivateKey, str]:
    """A private key and a base64 PEM CSR for it, for tests that use the certificate they get."""
    key = ec.generate_private_key(ec.SECP256R1())
    attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, org) for org in organizations]
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(attributes))
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns]), critical=False)
    pem = builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
    return key, base64.b64encode(pem).decode()
