"""A Recycle volume in the real daemon beside a real API server and svc-nodes: its claim goes, the
recycler pod runs on a simulated node and completes, and the volume is Available again."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningNodes, RunningServer
from tests.controllers.test_daemon import wait_for
from tests.controllers.test_pvbinder_e2e import CLAIMS, VOLUMES, claim, volume

EVENTS = "/api/v1/events"


def test_a_released_recycle_volume_is_scrubbed_by_a_pod_and_offered_again(
    svc_server: RunningServer,
    svc_controller_manager: Callable[..., RunningControllerManager],
    svc_nodes: Callable[..., RunningNodes],
) -> None:
    rest = svc_server.client()
    svc_nodes(svc_server, count=1)
    assert rest.request("POST", VOLUMES, body=volume("scratch", "1Gi", policy="Recycle")).status == 201
    assert rest.request("POST", CLAIMS, body=claim("data", "1Gi")).status == 201
    svc_controller_manager(
        svc_server, "--controllers=persistentvolume-binder,pvc-protection", "--pvclaimbinder-sync-period=1s"
    )

    def phase() -> str:
        return (rest.request("GET", f"{VOLUMES}/scratch").json().get("status") or {}).get("phase", "")

    assert wait_for(lambda: phase() == "Bound", timeout=20), phase()
    assert rest.request("DELETE", f"{CLAIMS}/data").status == 200
    assert wait_for(lambda: phase() == "Available", timeout=40), phase()
    recycled = rest.request("GET", VOLUMES + "/scratch").json()
    assert "claimRef" not in recycled["spec"]
    reasons = [event["reason"] for event in rest.request("GET", EVENTS).json()["items"]]
    assert "VolumeRecycled" in reasons
    assert rest.request("GET", "/api/v1/namespaces/default/pods/recycler-for-scratch").status == 404
