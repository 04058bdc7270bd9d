"""`--tls-sni-cert-key`: a client asking for a name gets that pair's certificate on the secure port."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable
from pathlib import Path

from cryptography import x509
from cryptography.x509.oid import NameOID

from svc.apiserver.pki import KeyPair, ensure_self_signed
from svc.testing.harness import RunningControllerManager, RunningServer


def _served_common_name(port: int, server_name: str) -> str:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with (
        socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
        context.wrap_socket(raw, server_hostname=server_name) as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    certificate = x509.load_der_x509_certificate(der)
    return str(certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value)


def test_the_pair_for_the_asked_name_is_served(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager], tmp_path: Path
) -> None:
    pair = ensure_self_signed(
        KeyPair(tmp_path / "sni.crt", tmp_path / "sni.key"), common_name="sni.example.com", hosts=["sni.example.com"]
    )
    running = svc_controller_manager(svc_server, "--controllers=ttl", f"--tls-sni-cert-key={pair.cert},{pair.key}")
    assert _served_common_name(running.port, "sni.example.com") == "sni.example.com"
    assert _served_common_name(running.port, "other.example.com") == "localhost"
