"""`--tls-min-version` on the daemon's secure port: a client limited to TLS 1.2 is refused when 1.3
is the minimum, as upstream's serving options do."""

from __future__ import annotations

import http.client
import ssl
from collections.abc import Callable

import pytest

from svc.testing.harness import RunningControllerManager, RunningServer


def _client(maximum: ssl.TLSVersion) -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.maximum_version = maximum
    return context


def test_a_client_below_the_minimum_version_is_refused(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    running = svc_controller_manager(svc_server, "--controllers=ttl", "--tls-min-version=VersionTLS13")
    modern = http.client.HTTPSConnection("127.0.0.1", running.port, timeout=5, context=_client(ssl.TLSVersion.TLSv1_3))
    modern.request("GET", "/healthz")
    assert modern.getresponse().status == 200
    old = http.client.HTTPSConnection("127.0.0.1", running.port, timeout=5, context=_client(ssl.TLSVersion.TLSv1_2))
    with pytest.raises(ssl.SSLError):
        old.request("GET", "/healthz")
