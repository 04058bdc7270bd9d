"""The service-cidr controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

CIDRS = "/apis/networking.svc/v1/servicecidrs"


def test_ranges_are_protected_and_ready_and_an_unused_one_goes_after_the_grace_period(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    extra = {"metadata": {"name": "extra"}, "spec": {"cidrs": ["10.9.0.0/24"]}}
    assert rest.request("POST", CIDRS, body=extra).status == 201
    svc_controller_manager(svc_server, "--controllers=service-cidr-controller")

    def ready(name: str) -> bool:
        cidr = rest.request("GET", f"{CIDRS}/{name}").json()
        conditions = (cidr.get("status") or {}).get("conditions") or []
        protected = "networking.svc/service-cidr-finalizer" in (cidr["metadata"].get("finalizers") or [])
        return protected and any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)

    assert wait_for(lambda: ready("svc") and ready("extra"), timeout=15)
    assert rest.request("DELETE", f"{CIDRS}/extra").status == 200
    assert rest.request("GET", f"{CIDRS}/extra").status == 200, "the finalizer holds it during the grace period"
    assert wait_for(lambda: rest.request("GET", f"{CIDRS}/extra").status == 404, timeout=25)
