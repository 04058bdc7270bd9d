"""The storage protection and ephemeral-volume controllers in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims"
PODS = "/api/v1/namespaces/default/pods"
VOLUMES = "/api/v1/persistentvolumes"
CLAIM_SPEC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
MERGE = "application/merge-patch+json"


def test_a_claim_in_use_by_a_pod_outlives_its_deletion_until_the_pod_goes(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, "--controllers=pvc-protection")
    rest = svc_server.client()
    assert rest.request("POST", CLAIMS, body={"metadata": {"name": "data"}, "spec": CLAIM_SPEC}).status == 201

    def finalizers() -> list:
        return rest.request("GET", f"{CLAIMS}/data").json()["metadata"].get("finalizers") or []

    assert wait_for(lambda: finalizers() == ["svc.io/pvc-protection"], timeout=10), finalizers()
    volumes = [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]
    spec = {"nodeName": "n1", "containers": [{"name": "c", "image": "busybox"}], "volumes": volumes}
    assert rest.request("POST", PODS, body={"metadata": {"name": "user"}, "spec": spec}).status == 201
    assert rest.request("DELETE", f"{CLAIMS}/data").status == 200
    assert not wait_for(lambda: rest.request("GET", f"{CLAIMS}/data").status == 404, timeout=1)
    assert rest.request("DELETE", f"{PODS}/user?gracePeriodSeconds=0").status == 200
    assert wait_for(lambda: rest.request("GET", f"{CLAIMS}/data").status == 404, timeout=10)


def test_a_bound_volume_outlives_its_deletion_until_it_is_released(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, "--controllers=pv-protection")
    rest = svc_server.client()
    spec = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/pv1"}}
    assert rest.request("POST", VOLUMES, body={"metadata": {"name": "pv1"}, "spec": spec}).status == 201

    def finalizers() -> list:
        return rest.request("GET", f"{VOLUMES}/pv1").json()["metadata"].get("finalizers") or []

    assert wait_for(lambda: finalizers() == ["svc.io/pv-protection"], timeout=10), finalizers()
    bound = {"status": {"phase": "Bound"}}
    assert rest.request("PATCH", f"{VOLUMES}/pv1/status", body=bound, content_type=MERGE).status == 200
    assert rest.request("DELETE", f"{VOLUMES}/pv1").status == 200
    assert not wait_for(lambda: rest.request("GET", f"{VOLUMES}/pv1").status == 404, timeout=1)
    released = {"status": {"phase": "Released"}}
    assert rest.request("PATCH", f"{VOLUMES}/pv1/status", body=released, content_type=MERGE).status == 200
    assert wait_for(lambda: rest.request("GET", f"{VOLUMES}/pv1").status == 404, timeout=10)


def ephemeral_pod(name: str) -> dict:
    template = {"metadata": {"labels": {"app": "web"}}, "spec": CLAIM_SPEC}
    volumes = [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": template}}]
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "busybox"}], "volumes": volumes}}


def test_a_generic_ephemeral_volume_gets_its_claim_owned_by_the_pod(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, "--controllers=ephemeral-volume")
    rest = svc_server.client()
    created = rest.request("POST", PODS, body=ephemeral_pod("web"))
    assert created.status == 201
    assert wait_for(lambda: rest.request("GET", f"{CLAIMS}/web-scratch").status == 200, timeout=10)
    claim = rest.request("GET", f"{CLAIMS}/web-scratch").json()
    assert claim["metadata"]["labels"] == {"app": "web"}
    assert claim["metadata"]["ownerReferences"][0]["uid"] == created.json()["metadata"]["uid"]
    assert claim["spec"]["resources"] == CLAIM_SPEC["resources"]


def test_a_pod_whose_ephemeral_claim_name_is_taken_gets_an_event_and_other_pods_are_served(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    taken = {"metadata": {"name": "web-scratch"}, "spec": CLAIM_SPEC}
    assert rest.request("POST", CLAIMS, body=taken).status == 201
    assert rest.request("POST", PODS, body=ephemeral_pod("web")).status == 201
    svc_controller_manager(svc_server, "--controllers=ephemeral-volume")

    def failures() -> list[tuple[str, str, str]]:
        items = rest.request("GET", "/api/v1/namespaces/default/events").json()["items"]
        return [(e["involvedObject"]["name"], e["type"], e["message"]) for e in items if e["reason"] == "FailedBinding"]

    message = "ephemeral volume scratch: PVC default/web-scratch was not created for pod default/web (pod is not owner)"
    assert wait_for(lambda: failures() == [("web", "Warning", message)], timeout=10), failures()
    assert rest.request("POST", PODS, body=ephemeral_pod("db")).status == 201
    assert wait_for(lambda: rest.request("GET", f"{CLAIMS}/db-scratch").status == 200, timeout=10)
    assert "ownerReferences" not in rest.request("GET", f"{CLAIMS}/web-scratch").json()["metadata"]
