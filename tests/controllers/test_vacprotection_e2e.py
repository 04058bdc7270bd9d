"""The volumeattributesclass-protection controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

CLASSES = "/apis/storage.svc/v1/volumeattributesclasses"
CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims"
CLAIM_SPEC = {
    "accessModes": ["ReadWriteOnce"],
    "resources": {"requests": {"storage": "1Gi"}},
    "volumeAttributesClassName": "gold",
}


def test_a_class_named_by_a_claim_outlives_its_deletion_until_the_claim_goes(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    # pvc-protection releases the claim the API server's admission gave its finalizer
    svc_controller_manager(svc_server, "--controllers=volumeattributesclass-protection-controller,pvc-protection")
    rest = svc_server.client()
    body = {"metadata": {"name": "gold"}, "driverName": "csi.example.com", "parameters": {"iops": "100"}}
    assert rest.request("POST", CLASSES, body=body).status == 201

    def finalizers() -> list:
        return rest.request("GET", f"{CLASSES}/gold").json()["metadata"].get("finalizers") or []

    assert wait_for(lambda: finalizers() == ["svc.io/vac-protection"], timeout=10), finalizers()
    assert rest.request("POST", CLAIMS, body={"metadata": {"name": "data"}, "spec": CLAIM_SPEC}).status == 201
    assert rest.request("DELETE", f"{CLASSES}/gold").status == 200
    assert not wait_for(lambda: rest.request("GET", f"{CLASSES}/gold").status == 404, timeout=1)
    assert rest.request("DELETE", f"{CLAIMS}/data").status == 200
    assert wait_for(lambda: rest.request("GET", f"{CLASSES}/gold").status == 404, timeout=10)
