"""The persistentvolume-binder controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims"
VOLUMES = "/api/v1/persistentvolumes"
EVENTS = "/api/v1/namespaces/default/events"


def volume(name: str, size: str, policy: str = "Retain") -> dict:
    spec = {
        "capacity": {"storage": size},
        "accessModes": ["ReadWriteOnce"],
        "persistentVolumeReclaimPolicy": policy,
        "hostPath": {"path": f"/tmp/{name}"},
        "storageClassName": "manual",
    }
    return {"metadata": {"name": name}, "spec": spec}


def claim(name: str, size: str, storage_class: str = "manual") -> dict:
    spec = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": size}},
        "storageClassName": storage_class,
    }
    return {"metadata": {"name": name}, "spec": spec}


def test_a_claim_binds_to_the_smallest_fitting_volume_which_is_released_after_the_claim_goes(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    for name, size in (("large", "10Gi"), ("medium", "2Gi"), ("tiny", "500Mi")):
        assert rest.request("POST", VOLUMES, body=volume(name, size)).status == 201
    assert rest.request("POST", CLAIMS, body=claim("data", "1Gi")).status == 201
    # The claim's protection finalizer (added on create) is released by pvc-protection. A claim synced
    # before the volumes are Available waits for the next periodic sync, as upstream: keep it short.
    svc_controller_manager(
        svc_server, "--controllers=persistentvolume-binder,pvc-protection", "--pvclaimbinder-sync-period=1s"
    )

    def claim_status() -> dict:
        return rest.request("GET", f"{CLAIMS}/data").json().get("status") or {}

    assert wait_for(lambda: claim_status().get("phase") == "Bound", timeout=15), claim_status()
    assert claim_status()["capacity"] == {"storage": "2Gi"}
    bound = rest.request("GET", f"{CLAIMS}/data").json()
    assert bound["spec"]["volumeName"] == "medium"
    medium = rest.request("GET", f"{VOLUMES}/medium").json()
    assert medium["status"]["phase"] == "Bound"
    assert medium["spec"]["claimRef"]["uid"] == bound["metadata"]["uid"]
    assert rest.request("GET", f"{VOLUMES}/tiny").json()["status"]["phase"] == "Available"

    assert rest.request("DELETE", f"{CLAIMS}/data").status == 200

    def medium_phase() -> str:
        return rest.request("GET", f"{VOLUMES}/medium").json()["status"].get("phase", "")

    assert wait_for(lambda: medium_phase() == "Released", timeout=15), medium_phase()


def test_a_claim_nothing_can_serve_stays_pending_with_an_event(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    assert rest.request("POST", CLAIMS, body=claim("orphan", "1Gi", storage_class="")).status == 201
    svc_controller_manager(svc_server, "--controllers=persistentvolume-binder")

    def reasons() -> list:
        items = rest.request("GET", EVENTS).json()["items"]
        return [(event["reason"], event["source"].get("component")) for event in items]

    assert wait_for(lambda: ("FailedBinding", "persistentvolume-controller") in reasons(), timeout=15), reasons()

    # The event comes first and the Pending status right after it, as upstream orders them.
    def phase() -> str:
        return (rest.request("GET", f"{CLAIMS}/orphan").json().get("status") or {}).get("phase", "")

    assert wait_for(lambda: phase() == "Pending", timeout=15), phase()
