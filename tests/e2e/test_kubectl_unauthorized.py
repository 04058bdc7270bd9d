"""Unmodified kubectl with a certificate the server does not trust is told it must log in (a 401), not a TLS error.

The wording is kubectl's for a 401 to its first (discovery) request, the same against upstream."""

from __future__ import annotations

import base64
import datetime

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.e2e.kubectl_runner import Kubectl

UNAUTHORIZED = (
    "error: You must be logged in to the server (the server has asked for the client to provide credentials)\n"
)


def _self_signed_client() -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mallory")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return certificate.public_bytes(serialization.Encoding.PEM), key_pem


def test_kubectl_with_a_certificate_of_another_ca_must_log_in(svc_server_factory, kubectl_binary, tmp_path) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    config = yaml.safe_load(server.kubeconfig.read_text())
    cert_pem, key_pem = _self_signed_client()
    config["users"][0]["user"] = {
        "client-certificate-data": base64.b64encode(cert_pem).decode(),
        "client-key-data": base64.b64encode(key_pem).decode(),
    }
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(config))
    # An empty discovery cache: a cached one (another server once on this port) would skip discovery,
    # and kubectl words the 401 of a plain GET differently ("(Unauthorized)").
    result = Kubectl(kubectl_binary, kubeconfig).run(
        "get", "secrets", "--cache-dir", str(tmp_path / "cache"), check=False
    )
    assert (result.returncode, result.stderr[-len(UNAUTHORIZED) :]) == (1, UNAUTHORIZED)
