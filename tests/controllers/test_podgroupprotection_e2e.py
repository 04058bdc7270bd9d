"""The podgroup-protection controller in the real daemon beside a real API server serving PodGroups
(GenericWorkload gate and scheduling.k8s.io/v1alpha2 on; its admission plugin stamps the finalizer)."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

GATE = "--feature-gates=GenericWorkload=true"
GROUPS = "/apis/scheduling.svc/v1alpha2/namespaces/default/podgroups"
PODS = "/api/v1/namespaces/default/pods"


def test_a_deleted_podgroup_outlives_its_deletion_until_its_pod_finishes(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory(GATE, "--runtime-config=scheduling.k8s.io/v1alpha2=true")
    rest = server.client()
    body = {"metadata": {"name": "gang"}, "spec": {"schedulingPolicy": {"basic": {}}}}
    created = rest.request("POST", GROUPS, body=body)
    assert created.status == 201, created.json()
    assert created.json()["metadata"]["finalizers"] == ["scheduling.svc/podgroup-protection"]
    spec = {"containers": [{"name": "c", "image": "busybox"}], "schedulingGroup": {"podGroupName": "gang"}}
    made = rest.request("POST", PODS, body={"metadata": {"name": "member"}, "spec": spec})
    assert made.status == 201, made.json()
    svc_controller_manager(server, GATE, "--controllers=podgroup-protection-controller")
    assert rest.request("DELETE", f"{GROUPS}/gang").status == 200
    assert not wait_for(lambda: rest.request("GET", f"{GROUPS}/gang").status == 404, timeout=1)
    finished = {"status": {"phase": "Succeeded"}}
    patched = rest.request("PATCH", f"{PODS}/member/status", body=finished, content_type="application/merge-patch+json")
    assert patched.status == 200, patched.json()
    assert wait_for(lambda: rest.request("GET", f"{GROUPS}/gang").status == 404, timeout=10)
