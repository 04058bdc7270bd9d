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
