"""The legacy-token cleaner beside a real API server, which keeps the tracking date it reads, both on
the server's fake clock."""

from __future__ import annotations

import datetime
from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

TRACKING = "/api/v1/namespaces/svc-system/configmaps/svc-apiserver-legacy-service-account-token-tracking"
SECRETS = "/api/v1/namespaces/default/secrets"


def test_the_api_server_dates_tracking_and_an_unused_auto_generated_token_is_marked_invalid_then_deleted(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory("--enable-test-endpoints", "--clock=fake")
    rest = server.client()
    tracking = rest.request("GET", TRACKING).json()
    assert tracking["data"] == {"since": _date(server.advance_clock(0))}
    tracking["data"]["since"] = "2020-01-01"
    assert rest.request("PUT", TRACKING, body=tracking).status == 200
    account = {"metadata": {"name": "builder"}, "secrets": [{"name": "builder-token"}]}
    created = rest.request("POST", "/api/v1/namespaces/default/serviceaccounts", body=account).json()
    annotations = {"svc.io/service-account.name": "builder", "svc.io/service-account.uid": created["metadata"]["uid"]}
    secret = {"metadata": {"name": "builder-token", "annotations": annotations}, "type": "svc.io/service-account-token"}
    assert rest.request("POST", SECRETS, body=secret).status == 201
    marked_on = _date(server.advance_clock(2))  # the token must be older than the (one second) clean-up period
    svc_controller_manager(
        server,
        "--controllers=legacy-service-account-token-cleaner",
        "--legacy-service-account-token-clean-up-period=1s",
    )

    def labels() -> dict:
        return rest.request("GET", f"{SECRETS}/builder-token").json()["metadata"].get("labels") or {}

    assert wait_for(lambda: labels().get("svc.io/legacy-token-invalid-since") == marked_on, timeout=15), labels()
    # deleted once the day it was marked on is older than the period, at the cleaner's next daily look
    server.advance_clock(24 * 3600)
    assert wait_for(lambda: rest.request("GET", f"{SECRETS}/builder-token").status == 404, timeout=15)


def _date(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d")
