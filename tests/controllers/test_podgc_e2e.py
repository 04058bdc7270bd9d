"""The pod garbage collector in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

PODS = "/api/v1/namespaces/default/pods"


def test_terminated_pods_beyond_the_threshold_are_deleted_oldest_first(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    # Created in name order within the same second: the tie is broken by name, as the oldest first.
    for name in ("a-old", "b-new"):
        body = {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        assert rest.request("POST", PODS, body=body).status == 201
        status = {"status": {"phase": "Succeeded"}}
        patched = rest.request(
            "PATCH", f"{PODS}/{name}/status", body=status, content_type="application/merge-patch+json"
        )
        assert patched.status == 200
    svc_controller_manager(svc_server, "--controllers=podgc", "--terminated-pod-gc-threshold=1")
    assert wait_for(lambda: rest.request("GET", f"{PODS}/a-old").status == 404, timeout=10)
    assert rest.request("GET", f"{PODS}/b-new").status == 200


def test_a_pod_bound_to_a_missing_node_goes_after_the_40_second_quarantine_on_the_servers_fake_clock(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory("--enable-test-endpoints", "--clock=fake")
    rest = server.client()
    body = {"metadata": {"name": "orphan"}, "spec": {"nodeName": "gone", "containers": [{"name": "c", "image": "x"}]}}
    assert rest.request("POST", PODS, body=body).status == 201
    svc_controller_manager(server, "--controllers=podgc")

    def deleted() -> bool:
        return rest.request("GET", f"{PODS}/orphan").status == 404

    # passes every 20 s: the first sees the node missing, the third is 40 s later
    assert not wait_for(deleted, timeout=1)
    server.advance_clock(20)
    assert not wait_for(deleted, timeout=1)
    server.advance_clock(20)
    assert wait_for(deleted, timeout=10)
