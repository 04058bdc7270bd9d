"""The token cleaner in the real daemon beside a real API server (enabled by name: off by default)."""

from __future__ import annotations

import base64
from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

SECRETS = "/api/v1/namespaces/svc-system/secrets"


def test_an_expired_bootstrap_token_is_deleted_and_a_live_one_kept(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    for name, expires in (
        ("bootstrap-token-old123", "2000-01-01T00:00:00Z"),
        ("bootstrap-token-new123", "2999-01-01T00:00:00Z"),
    ):
        data = {
            "token-id": base64.b64encode(name[-6:].encode()).decode(),
            "expiration": base64.b64encode(expires.encode()).decode(),
        }
        body = {"metadata": {"name": name}, "type": "bootstrap.svc.io/token", "data": data}
        assert rest.request("POST", SECRETS, body=body).status == 201
    svc_controller_manager(svc_server, "--controllers=tokencleaner")
    assert wait_for(lambda: rest.request("GET", f"{SECRETS}/bootstrap-token-old123").status == 404, timeout=10)
    assert rest.request("GET", f"{SECRETS}/bootstrap-token-new123").status == 200
