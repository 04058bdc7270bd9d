"""The TLS context asks for a client certificate and leaves its verification to the authenticator."""

from __future__ import annotations

import ssl

from svc.apiserver.request_client_cert import request_client_certificate


def test_callback_is_installed_on_cpython_and_the_certificate_still_requested() -> None:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    assert request_client_certificate(context) is True
    assert context.verify_mode == ssl.CERT_OPTIONAL
