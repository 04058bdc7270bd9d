"""The persistentvolume-expander controller in the real daemon beside a real API server: growing a
bound claim whose class allows it hands the claim to an external resizer; growing one whose class
does not is refused by admission before any controller sees it."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for
from tests.controllers.test_pvbinder_e2e import CLAIMS, EVENTS, VOLUMES, claim, volume

CLASSES = "/apis/storage.svc/v1/storageclasses"
MERGE = "application/merge-patch+json"
GROW = {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}


def test_a_bound_claim_grown_where_its_class_allows_waits_for_an_external_resizer(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    for name, expands in (("expandable", True), ("fixed", False)):
        storage_class = {"metadata": {"name": name}, "provisioner": "example.com/disk", "allowVolumeExpansion": expands}
        assert rest.request("POST", CLASSES, body=storage_class).status == 201
        pv = volume(f"pv-{name}", "1Gi")
        pv["spec"]["storageClassName"] = name
        assert rest.request("POST", VOLUMES, body=pv).status == 201
        assert rest.request("POST", CLAIMS, body=claim(name, "1Gi", storage_class=name)).status == 201
    svc_controller_manager(svc_server, "--controllers=persistentvolume-binder,persistentvolume-expander")

    def phase(name: str) -> str:
        return (rest.request("GET", f"{CLAIMS}/{name}").json().get("status") or {}).get("phase", "")

    assert wait_for(lambda: phase("expandable") == phase("fixed") == "Bound", timeout=15)

    refused = rest.request("PATCH", f"{CLAIMS}/fixed", body=GROW, content_type=MERGE)
    assert refused.status == 403
    assert refused.json()["message"].endswith(
        "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc "
        "must support resize"
    )
    assert rest.request("PATCH", f"{CLAIMS}/expandable", body=GROW, content_type=MERGE).status == 200

    def expansions() -> list[tuple[str, str, str]]:
        return [
            (event["involvedObject"]["name"], event["reason"], event["source"].get("component", ""))
            for event in rest.request("GET", EVENTS).json()["items"]
            if event["reason"] == "ExternalExpanding"
        ]

    assert wait_for(lambda: expansions() == [("expandable", "ExternalExpanding", "volume_expand")], timeout=15), (
        expansions()
    )
    # Nothing resizes here: the claim keeps its old capacity until an external resizer sets it.
    assert rest.request("GET", f"{CLAIMS}/expandable").json()["status"]["capacity"] == {"storage": "1Gi"}
