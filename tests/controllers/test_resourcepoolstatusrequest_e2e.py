"""The resourcepoolstatusrequest controller in the real daemon beside a real API server serving the
alpha API (its gate and resource.k8s.io/v1alpha3 on)."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

GATE = "--feature-gates=DRAResourcePoolStatus=true"
REQUESTS = "/apis/resource.svc/v1alpha3/resourcepoolstatusrequests"
SLICES = "/apis/resource.svc/v1/resourceslices"


def test_a_request_is_answered_with_the_drivers_pools(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory(GATE, "--runtime-config=resource.k8s.io/v1alpha3=true")
    rest = server.client()
    assert rest.request("POST", "/api/v1/nodes", body={"metadata": {"name": "n1"}}).status == 201
    spec = {
        "driver": "gpu.example.com",
        "nodeName": "n1",
        "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
        "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}],
    }
    created = rest.request("POST", SLICES, body={"metadata": {"name": "n1-gpus"}, "spec": spec})
    assert created.status == 201, created.json()
    asked = rest.request("POST", REQUESTS, body={"metadata": {"name": "q"}, "spec": {"driver": "gpu.example.com"}})
    assert asked.status == 201, asked.json()
    assert "status" not in asked.json()  # upstream's create leaves the optional status out
    svc_controller_manager(server, GATE, "--controllers=resourcepoolstatusrequest-controller")

    def status() -> dict:
        return rest.request("GET", f"{REQUESTS}/q").json().get("status") or {}

    assert wait_for(status, timeout=15)
    pool = status()["pools"][0]
    assert (status()["poolCount"], pool["poolName"], pool["totalDevices"], pool["availableDevices"]) == (1, "n1", 2, 2)
    assert status()["conditions"][0]["reason"] == "CalculationComplete"
