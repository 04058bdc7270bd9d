"""The TLS context asks for a client certificate and leaves its verification to the authenticator."""

from __future__ import annotations

import ssl

from svc.apiserver import request_client_cert
from svc.apiserver.request_client_cert import request_client_certificate


def test_callback_is_installed_on_cpython_and_the_certificate_still_requested() -> None:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    assert request_client_certificate(context) is True
    assert context.verify_mode == ssl.CERT_OPTIONAL


def test_a_context_whose_state_does_not_match_is_left_alone() -> None:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    assert request_client_cert._LIBSSL is not None
    assert request_client_cert._ssl_ctx_pointer(context, request_client_cert._LIBSSL) is None


def test_without_openssl_through_ctypes_the_handshake_keeps_verifying(monkeypatch) -> None:
    monkeypatch.setattr(request_client_cert, "_LIBSSL", None)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    assert request_client_certificate(context) is False
    assert context.verify_mode == ssl.CERT_OPTIONAL
