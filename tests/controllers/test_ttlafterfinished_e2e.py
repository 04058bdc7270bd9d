"""The ttl-after-finished controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

JOBS = "/apis/batch/v1/namespaces/default/jobs"


def test_a_completed_job_with_a_zero_ttl_is_deleted(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    # The Job is deleted in the foreground: the garbage collector finishes what the controller starts.
    svc_controller_manager(svc_server, "--controllers=ttl-after-finished,garbagecollector")
    rest = svc_server.client()
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    body = {"metadata": {"name": "pi"}, "spec": {"ttlSecondsAfterFinished": 0, "template": template}}
    response = rest.request("POST", JOBS, body=body)
    assert response.status == 201, response.json()
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    conditions = [
        {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": now},
        {"type": "Complete", "status": "True", "lastTransitionTime": now},
    ]
    status = {"status": {"startTime": now, "completionTime": now, "succeeded": 1, "conditions": conditions}}
    response = rest.request("PATCH", f"{JOBS}/pi/status", body=status, content_type="application/merge-patch+json")
    assert response.status == 200, response.json()
    assert wait_for(lambda: rest.request("GET", f"{JOBS}/pi").status == 404, timeout=10)
