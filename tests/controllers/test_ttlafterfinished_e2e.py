"""The ttl-after-finished controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

JOBS = "/apis/batch/v1/namespaces/default/jobs"
# The Job is deleted in the foreground: the garbage collector finishes what the controller starts.
CONTROLLERS = "--controllers=ttl-after-finished,garbagecollector"


def finished_job(rest: Any, ttl: int, finished_at: float) -> None:
    """A Job `pi` with `ttlSecondsAfterFinished: ttl` that completed at `finished_at`."""
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    body = {"metadata": {"name": "pi"}, "spec": {"ttlSecondsAfterFinished": ttl, "template": template}}
    response = rest.request("POST", JOBS, body=body)
    assert response.status == 201, response.json()
    at = datetime.fromtimestamp(finished_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    conditions = [
        {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": at},
        {"type": "Complete", "status": "True", "lastTransitionTime": at},
    ]
    status = {"status": {"startTime": at, "completionTime": at, "succeeded": 1, "conditions": conditions}}
    response = rest.request("PATCH", f"{JOBS}/pi/status", body=status, content_type="application/merge-patch+json")
    assert response.status == 200, response.json()


def test_a_completed_job_with_a_zero_ttl_is_deleted(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, CONTROLLERS)
    rest = svc_server.client()
    finished_job(rest, 0, datetime.now(UTC).timestamp())
    assert wait_for(lambda: rest.request("GET", f"{JOBS}/pi").status == 404, timeout=10)


def test_a_completed_job_is_kept_until_its_ttl_has_passed_on_the_servers_fake_clock(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory("--enable-test-endpoints", "--clock=fake")
    svc_controller_manager(server, CONTROLLERS)
    rest = server.client()
    finished_job(rest, 60, server.advance_clock(0))

    def gone() -> bool:
        return rest.request("GET", f"{JOBS}/pi").status == 404

    assert not wait_for(gone, timeout=1)
    server.advance_clock(59)
    assert not wait_for(gone, timeout=1)
    server.advance_clock(1)
    assert wait_for(gone, timeout=10)
