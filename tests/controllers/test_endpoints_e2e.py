"""The endpoints and endpointslice controllers in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

SLICES = "/apis/discovery.svc/v1/namespaces/default/endpointslices?labelSelector=svc.io%2Fservice-name%3Dweb"
MERGE = "application/merge-patch+json"


def make_pod(rest: Any, name: str, ip: str) -> None:
    body = {
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"name": "web", "containerPort": 8080}]}]},
    }
    assert rest.request("POST", "/api/v1/namespaces/default/pods", body=body).status == 201
    status = {"status": {"podIP": ip, "conditions": [{"type": "Ready", "status": "True"}]}}
    path = f"/api/v1/namespaces/default/pods/{name}/status"
    assert rest.request("PATCH", path, body=status, content_type=MERGE).status == 200


def addresses(rest: Any) -> list[tuple[str, bool]]:
    items = rest.request("GET", SLICES).json()["items"]
    return sorted((e["addresses"][0], e["conditions"]["ready"]) for s in items for e in s.get("endpoints") or [])


def test_an_endpoint_slice_and_endpoints_follow_a_services_pods(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, "--controllers=endpointslice,endpoint")
    rest = svc_server.client()
    service = {
        "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "web"}]},
    }
    assert rest.request("POST", "/api/v1/namespaces/default/services", body=service).status == 201
    make_pod(rest, "a", "10.1.0.1")
    make_pod(rest, "b", "10.1.0.2")
    assert wait_for(lambda: addresses(rest) == [("10.1.0.1", True), ("10.1.0.2", True)], timeout=10)
    [endpoint_slice] = rest.request("GET", SLICES).json()["items"]
    assert endpoint_slice["ports"] == [{"name": "", "port": 8080, "protocol": "TCP"}]
    assert endpoint_slice["metadata"]["ownerReferences"][0]["kind"] == "Service"
    not_ready = {"status": {"conditions": [{"type": "Ready", "status": "False"}]}}
    path = "/api/v1/namespaces/default/pods/b/status"
    assert rest.request("PATCH", path, body=not_ready, content_type=MERGE).status == 200
    assert rest.request("DELETE", "/api/v1/namespaces/default/pods/a?gracePeriodSeconds=0").status == 200
    assert wait_for(lambda: addresses(rest) == [("10.1.0.2", False)], timeout=10)

    def endpoints() -> dict:
        response = rest.request("GET", "/api/v1/namespaces/default/endpoints/web")
        return response.json() if response.status == 200 else {}

    assert wait_for(
        lambda: (
            [a["ip"] for s in endpoints().get("subsets", []) for a in s.get("notReadyAddresses", [])] == ["10.1.0.2"]
        ),
        timeout=10,
    )
    assert rest.request("DELETE", "/api/v1/namespaces/default/services/web").status == 200
    assert wait_for(lambda: rest.request("GET", "/api/v1/namespaces/default/endpoints/web").status == 404, timeout=10)
