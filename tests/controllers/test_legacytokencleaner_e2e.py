"""The legacy-token cleaner beside a real API server, which keeps the tracking date it reads."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

TRACKING = "/api/v1/namespaces/svc-system/configmaps/svc-apiserver-legacy-service-account-token-tracking"
SECRETS = "/api/v1/namespaces/default/secrets"


def test_the_api_server_dates_tracking_and_an_unused_auto_generated_token_is_marked_invalid(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    tracking = rest.request("GET", TRACKING).json()
    assert tracking["data"] == {"since": today}
    tracking["data"]["since"] = "2020-01-01"
    assert rest.request("PUT", TRACKING, body=tracking).status == 200
    account = {"metadata": {"name": "builder"}, "secrets": [{"name": "builder-token"}]}
    created = rest.request("POST", "/api/v1/namespaces/default/serviceaccounts", body=account).json()
    annotations = {"svc.io/service-account.name": "builder", "svc.io/service-account.uid": created["metadata"]["uid"]}
    secret = {"metadata": {"name": "builder-token", "annotations": annotations}, "type": "svc.io/service-account-token"}
    assert rest.request("POST", SECRETS, body=secret).status == 201
    time.sleep(2.1)  # the token must be older than the (one second) clean-up period
    svc_controller_manager(
        svc_server,
        "--controllers=legacy-service-account-token-cleaner",
        "--legacy-service-account-token-clean-up-period=1s",
    )

    def labels() -> dict:
        return rest.request("GET", f"{SECRETS}/builder-token").json()["metadata"].get("labels") or {}

    assert wait_for(lambda: labels().get("svc.io/legacy-token-invalid-since") == today, timeout=15), labels()
