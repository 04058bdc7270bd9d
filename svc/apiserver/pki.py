"""Certificates of the embedded default: a serving CA and certificate, a client CA and an admin client.

Generated once into the certificate directory and reused on restart, so clients configured with the
first run's kubeconfig keep working. Keys are ECDSA P-256: generation takes about a millisecond,
which keeps a fresh server's start well under a second.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from svc.client.tls import memory_file
from svc.private_files import make_private_dir, tighten, write_private

_VALIDITY = datetime.timedelta(days=3650)


@dataclass(frozen=True)
class KeyPair:
    cert: Path
    key: Path


@dataclass(frozen=True)
class Pki:
    serving_ca: KeyPair
    serving: KeyPair
    client_ca: KeyPair
    admin: KeyPair


def _name(common_name: str, organizations: tuple[str, ...] = ()) -> x509.Name:
    attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, org) for org in organizations]
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    return x509.Name(attributes)


def _write(pair: KeyPair, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> None:
    write_private(
        pair.key,
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )
    write_private(pair.cert, cert.public_bytes(serialization.Encoding.PEM))


def _load(pair: KeyPair) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    cert = x509.load_pem_x509_certificate(pair.cert.read_bytes())
    key = serialization.load_pem_private_key(pair.key.read_bytes(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return cert, key


def _issue(
    subject: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None,
    *,
    ca: bool = False,
    usage: list[x509.ObjectIdentifier] | None = None,
    sans: list[x509.GeneralName] | None = None,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    issuer_name, signing_key = (issuer[0].subject, issuer[1]) if issuer else (subject, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + _VALIDITY)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=not ca,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=ca,
                crl_sign=ca,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    if usage:
        builder = builder.add_extension(x509.ExtendedKeyUsage(usage), critical=False)
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(signing_key, hashes.SHA256())


def _ensure_ca(pair: KeyPair, common_name: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    if pair.cert.exists() and pair.key.exists():
        return _load(pair)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _issue(_name(common_name), key, None, ca=True)
    _write(pair, cert, key)
    return cert, key


def _sans(hosts: list[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in dict.fromkeys(hosts):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return names


def _covers(cert: x509.Certificate, hosts: list[str]) -> bool:
    try:
        present = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    have = {str(v) for v in present.get_values_for_type(x509.DNSName)}
    have |= {str(v) for v in present.get_values_for_type(x509.IPAddress)}
    return all(str(ipaddress.ip_address(h)) in have if _is_ip(h) else h in have for h in hosts)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def serving_hosts(extra: list[str], service_name: str) -> list[str]:
    """Names the serving certificate answers to: loopback, this host, and the in-cluster service names."""
    hosts = ["localhost", "127.0.0.1", "::1", socket.gethostname()]
    hosts += [service_name, f"{service_name}.default", f"{service_name}.default.svc"]
    hosts += [host for host in extra if host and host not in ("0.0.0.0", "::")]
    return list(dict.fromkeys(hosts))


def ensure_pki(directory: Path, *, hosts: list[str], admin_user: str, apiserver_name: str) -> Pki:
    """Create what is missing in `directory`; keep what exists (a restart reuses every certificate)."""
    make_private_dir(directory)
    pki = Pki(
        serving_ca=KeyPair(directory / "ca.crt", directory / "ca.key"),
        serving=KeyPair(directory / "apiserver.crt", directory / "apiserver.key"),
        client_ca=KeyPair(directory / "client-ca.crt", directory / "client-ca.key"),
        admin=KeyPair(directory / "admin.crt", directory / "admin.key"),
    )
    for pair in (pki.serving_ca, pki.serving, pki.client_ca, pki.admin):
        tighten(pair.cert)
        tighten(pair.key)
    serving_ca = _ensure_ca(pki.serving_ca, f"{apiserver_name}-ca")
    client_ca = _ensure_ca(pki.client_ca, f"{apiserver_name}-client-ca")
    if not (pki.serving.cert.exists() and pki.serving.key.exists() and _covers(_load(pki.serving)[0], hosts)):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _issue(
            _name(apiserver_name), key, serving_ca, usage=[ExtendedKeyUsageOID.SERVER_AUTH], sans=_sans(hosts)
        )
        _write(pki.serving, cert, key)
    if not (pki.admin.cert.exists() and pki.admin.key.exists()):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _issue(_name(admin_user, ("system:masters",)), key, client_ca, usage=[ExtendedKeyUsageOID.CLIENT_AUTH])
        _write(pki.admin, cert, key)
    return pki


def ensure_self_signed(pair: KeyPair, *, common_name: str, hosts: list[str]) -> KeyPair:
    """A self-signed serving pair for `hosts` (the controller daemon's default when given no
    certificate), kept across restarts while it still covers them."""
    if pair.cert.exists() and pair.key.exists() and _covers(_load(pair)[0], hosts):
        return pair
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _issue(_name(common_name), key, None, usage=[ExtendedKeyUsageOID.SERVER_AUTH], sans=_sans(hosts))
    _write(pair, cert, key)
    return pair


def self_signed_server_context(*, common_name: str, hosts: list[str]) -> ssl.SSLContext:
    """A serving TLS context with a fresh self-signed certificate that never touches the disk (the
    simulated kubelet's: the API server does not verify kubelets without a kubelet CA, as upstream)."""
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _issue(_name(common_name), key, None, usage=[ExtendedKeyUsageOID.SERVER_AUTH], sans=_sans(hosts))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with memory_file(cert.public_bytes(serialization.Encoding.PEM)) as cert_path, memory_file(key_pem) as key_path:
        context.load_cert_chain(cert_path, key_path)
    return context
