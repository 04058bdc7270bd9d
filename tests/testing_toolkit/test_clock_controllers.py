"""One `advance_clock` moves the API server and the controller manager beside it (`--clock=fake`):
a CronJob runs and a node whose Lease is not renewed goes NotReady, with no sleeping."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

START = "2030-01-01T00:00:00Z"
FAKE = ("--enable-test-endpoints", "--clock=fake", f"--fake-clock-start={START}")
CRONJOBS = "/apis/batch/v1/namespaces/default/cronjobs"
JOBS = "/apis/batch/v1/namespaces/default/jobs"
NODES = "/api/v1/nodes"
LEASES = "/apis/coordination.svc/v1/namespaces/svc-node-lease/leases"
LEADER = "/apis/coordination.svc/v1/namespaces/svc-system/leases/svc-controller-manager"


@pytest.fixture
def server(svc_server_factory) -> RunningServer:
    return svc_server_factory(*FAKE)


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_cronjob_runs_when_the_clock_reaches_its_schedule(
    server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    api = server.client()
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    cronjob = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "tick"},
        "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": template}}},
    }
    assert api.request("POST", CRONJOBS, body=cronjob).status == 201
    svc_controller_manager(server, "--controllers=cronjob")
    assert not wait_for(lambda: api.request("GET", JOBS).json()["items"], timeout=1.0), "nothing is due yet"
    # The controller looks again 100 ms after each scheduled time, as upstream's does.
    server.advance_clock(5 * 60 + 1)

    def jobs() -> list[dict]:
        return api.request("GET", JOBS).json()["items"]

    assert wait_for(jobs, timeout=30)
    job = jobs()[0]
    due = datetime.fromisoformat("2030-01-01T00:05:00+00:00")
    assert job["metadata"]["name"] == f"tick-{int(due.timestamp()) // 60}"
    assert job["metadata"]["creationTimestamp"] == "2030-01-01T00:05:01Z"
    status = wait_for(
        lambda: api.request("GET", f"{CRONJOBS}/tick").json().get("status", {}).get("lastScheduleTime"), timeout=30
    )
    assert status == "2030-01-01T00:05:00Z"


def _node(api, name: str, now: float) -> None:
    ready = {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready"}
    ready |= {"lastHeartbeatTime": _stamp(now)[:19] + "Z", "lastTransitionTime": _stamp(now)[:19] + "Z"}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
    assert api.request("POST", NODES, body=node).status == 201
    status = api.request("GET", f"{NODES}/{name}").json() | {"status": {"conditions": [ready]}}
    assert api.request("PUT", f"{NODES}/{name}/status", body=status).status == 200
    lease = {
        "apiVersion": "coordination.svc/v1",
        "kind": "Lease",
        "metadata": {"name": name},
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": _stamp(now)},
    }
    assert api.request("POST", LEASES, body=lease).status == 201


def _ready(api, name: str) -> dict:
    conditions = api.request("GET", f"{NODES}/{name}").json().get("status", {}).get("conditions", [])
    return next((c for c in conditions if c["type"] == "Ready"), {})


def test_a_node_whose_lease_is_not_renewed_goes_not_ready_as_the_clock_moves(
    server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    api = server.client()
    now = server.advance_clock(0)
    for name in ("alive", "gone"):
        _node(api, name, now)
    svc_controller_manager(server, "--controllers=nodelifecycle")
    # Each step waits until the controller manager's clock has caught up (its leader Lease is renewed
    # at the new time), then renews the live node's Lease, as its kubelet would.
    for _ in range(30):
        now = server.advance_clock(5)
        assert wait_for(lambda at=_stamp(now): api.request("GET", LEADER).json()["spec"]["renewTime"] >= at, timeout=10)
        if _ready(api, "gone").get("status") == "Unknown":
            break
        lease = api.request("GET", f"{LEASES}/alive").json()
        lease["spec"]["renewTime"] = _stamp(now)
        assert api.request("PUT", f"{LEASES}/alive", body=lease).status == 200
    gone = _ready(api, "gone")
    assert (gone.get("status"), gone.get("reason")) == ("Unknown", "NodeStatusUnknown")
    assert _ready(api, "alive")["status"] == "True"


def test_the_controller_manager_refuses_to_follow_a_real_clock(
    svc_server_factory, svc_controller_manager: Callable[..., RunningControllerManager], tmp_path
) -> None:
    real = svc_server_factory("--enable-test-endpoints")
    with pytest.raises(RuntimeError, match="exited with 1"):
        svc_controller_manager(real, "--clock=fake")
    log = (tmp_path / "controller-manager-0.log").read_text()
    assert "Error: --clock=fake: the API server's clock is real; start it with --clock=fake" in log
