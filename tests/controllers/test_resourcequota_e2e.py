"""The resourcequota controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

QUOTA = "/api/v1/namespaces/default/resourcequotas/q"


def test_quota_status_counts_objects_and_pod_requests_and_follows_deletions(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, "--controllers=resourcequota")
    rest = svc_server.client()
    hard = {"pods": "5", "configmaps": "10", "requests.cpu": "2", "count/deployments.apps": "3"}
    body = {"metadata": {"name": "q"}, "spec": {"hard": hard}}
    assert rest.request("POST", "/api/v1/namespaces/default/resourcequotas", body=body).status == 201
    resources = {"requests": {"cpu": "300m"}}
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources}]}}
    assert rest.request("POST", "/api/v1/namespaces/default/pods", body=pod).status == 201

    def used() -> dict:
        return (rest.request("GET", QUOTA).json().get("status") or {}).get("used") or {}

    assert wait_for(lambda: used().get("pods") == "1" and used().get("requests.cpu") == "300m", timeout=10), used()
    status = rest.request("GET", QUOTA).json()["status"]
    assert status["hard"] == hard
    assert status["used"]["count/deployments.apps"] == "0"
    assert rest.request("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0").status == 200
    assert wait_for(lambda: used().get("pods") == "0" and used().get("requests.cpu") == "0", timeout=10), used()
