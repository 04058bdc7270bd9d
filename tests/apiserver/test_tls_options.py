"""The TLS flags of the secure port, checked with real handshakes: minimum version, cipher suites
(Go names), curves (Go ids) and SNI certificates, with client-certificate authentication kept."""

from __future__ import annotations

import http.client
import socket
import ssl
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography import x509

from svc.apiserver.options import parse_options
from svc.testing.harness import RunningServer
from svc.testing.webhook_server import WebhookTls, issue_webhook_tls
from tests.apiserver.raw_http import address, tls_context


def _handshake(server: RunningServer, context: ssl.SSLContext, server_name: str | None = None) -> ssl.SSLSocket:
    host, port = address(server)
    sock = socket.create_connection((host, port), timeout=10)
    return context.wrap_socket(sock, server_hostname=server_name or host)


def _fails(server: RunningServer, context: ssl.SSLContext) -> bool:
    try:
        _handshake(server, context).close()
    except (ssl.SSLError, ConnectionResetError):
        return True
    return False


def _client(server: RunningServer, *, max_version: ssl.TLSVersion | None = None) -> ssl.SSLContext:
    context = tls_context(server)
    if max_version is not None:
        context.maximum_version = max_version
    return context


def test_min_version_refuses_older_clients(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory("--tls-min-version=VersionTLS13")
    assert _fails(server, _client(server, max_version=ssl.TLSVersion.TLSv1_2))
    with _handshake(server, _client(server)) as tls:
        assert tls.version() == "TLSv1.3"


def test_cipher_suites_by_go_name_limit_tls12(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory("--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384")
    with _handshake(server, _client(server, max_version=ssl.TLSVersion.TLSv1_2)) as tls:
        assert tls.cipher()[0] == "ECDHE-ECDSA-AES256-GCM-SHA384"
    other = _client(server, max_version=ssl.TLSVersion.TLSv1_2)
    other.set_ciphers("ECDHE-ECDSA-AES128-GCM-SHA256")
    assert _fails(server, other)


def test_curve_preferences_limit_the_key_exchange(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory("--tls-curve-preferences=24")  # P-384 only
    p384 = _client(server)
    p384.set_ecdh_curve("secp384r1")
    _handshake(server, p384).close()
    x25519 = _client(server)
    x25519.set_ecdh_curve("X25519")
    assert _fails(server, x25519)


def _sni_client(server: RunningServer, tls: WebhookTls) -> ssl.SSLContext:
    """Trusts the SNI certificate's CA and still presents the admin client certificate."""
    context = tls_context(server)
    context.load_verify_locations(cadata=tls.ca_pem.decode())
    return context


def _served_name(server: RunningServer, context: ssl.SSLContext, name: str) -> str:
    with _handshake(server, context, name) as tls:
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der).subject.rfc4514_string()


def test_sni_certificates_by_extracted_and_explicit_names(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    extracted = issue_webhook_tls(tmp_path / "a", ["named.example"])
    explicit = issue_webhook_tls(tmp_path / "b", ["ignored.example"])
    server = svc_server_factory(
        f"--tls-sni-cert-key={extracted.cert_file},{extracted.key_file}",
        f"--tls-sni-cert-key={explicit.cert_file},{explicit.key_file}:*.wild.example,named.example",
    )
    context = _sni_client(server, extracted)
    context.load_verify_locations(cadata=explicit.ca_pem.decode())
    context.check_hostname = False
    # An explicit name beats the same name read from a certificate.
    assert _served_name(server, context, "named.example") == "CN=ignored.example"
    assert _served_name(server, context, "a.wild.example") == "CN=ignored.example"
    assert _served_name(server, context, "a.b.wild.example") != "CN=ignored.example"  # one label only
    assert "ignored.example" not in _served_name(server, context, "unknown.example")


def test_client_certificates_authenticate_through_an_sni_certificate(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    tls = issue_webhook_tls(tmp_path / "sni", ["api.example"])
    server = svc_server_factory(f"--tls-sni-cert-key={tls.cert_file},{tls.key_file}")
    context = _sni_client(server, tls)
    context.check_hostname = False
    host, port = address(server)
    connection = http.client.HTTPSConnection(host, port, timeout=10, context=context)
    connection.sock = _handshake(server, context, "api.example")
    connection.request("GET", "/api/v1/namespaces/default")
    assert connection.getresponse().status == 200  # anonymous requests get 401 under AlwaysAllow
    connection.close()


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--tls-min-version=VersionTLS14", 'unknown tls version "VersionTLS14"'),
        ("--tls-cipher-suites=TLS_NOPE", "Cipher suite TLS_NOPE not supported or doesn't exist"),
        ("--tls-curve-preferences=23,23", "duplicate curve preference 23"),
        ("--tls-curve-preferences=70000", "curve preference 70000 is out of range (must be 1-65535)"),
        ("--tls-curve-preferences=4588", "curve preference 4588 is not supported"),
        ("--tls-sni-cert-key=onlyone", "expected comma separated certificate and key file paths"),
        ("--tls-sni-cert-key=/nope.crt,/nope.key", "failed to load SNI cert and key"),
    ],
)
def test_bad_tls_flags_stop_the_process(flag: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse_options([flag])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_insecure_cipher_suites_are_accepted() -> None:
    options = parse_options(["--tls-cipher-suites=TLS_RSA_WITH_AES_128_GCM_SHA256"])
    assert options.serving.tls_cipher_suites == ["TLS_RSA_WITH_AES_128_GCM_SHA256"]
