"""The status the simulated kubelet reports for a deleted pod before removing it (the real kubelet since
1.27): killed containers, and the pod terminal."""

from __future__ import annotations

from typing import Any

from svc.nodes.pod_status import ended_status, killed_status, running_status

WALL = 1_800_000_000.0


def _pod(*names: str, phase: str = "Pending") -> dict[str, Any]:
    containers = [{"name": name, "image": "busybox"} for name in names]
    return {"metadata": {"name": "p", "uid": "u"}, "spec": {"containers": containers}, "status": {"phase": phase}}


def _state(status: dict[str, Any], index: int = 0) -> dict[str, Any]:
    return status["containerStatuses"][index]["state"]["terminated"]


def test_running_containers_end_with_exit_code_137_error():
    pod = _pod("main")
    pod["status"] = running_status(pod, "10.0.0.1", "10.244.0.2", WALL)
    killed = killed_status(pod, WALL + 5)
    assert killed["phase"] == "Failed"
    terminated = _state(killed)
    assert (terminated["exitCode"], terminated["reason"]) == (137, "Error")
    assert terminated["startedAt"] == pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"]
    assert killed["containerStatuses"][0]["ready"] is False


def test_containers_that_never_started_are_reported_as_status_unknown():
    killed = killed_status(_pod("main"), WALL)
    terminated = _state(killed)
    assert (terminated["exitCode"], terminated["reason"]) == (137, "ContainerStatusUnknown")
    assert terminated["message"] == "The container could not be located when the pod was terminated"
    assert killed["phase"] == "Failed"


def test_a_pod_that_succeeded_stays_succeeded():
    pod = _pod("main")
    pod["status"] = running_status(pod, "10.0.0.1", "10.244.0.2", WALL)
    pod["spec"]["restartPolicy"] = "Never"
    pod["status"] = ended_status(pod, 0, WALL + 1)
    killed = killed_status(pod, WALL + 2)
    assert killed["phase"] == "Succeeded"
    assert _state(killed)["reason"] == "Completed"


def test_the_ready_conditions_turn_false():
    pod = _pod("main")
    pod["status"] = running_status(pod, "10.0.0.1", "10.244.0.2", WALL)
    conditions = {c["type"]: c for c in killed_status(pod, WALL + 1)["conditions"]}
    assert (conditions["Ready"]["status"], conditions["Ready"]["reason"]) == ("False", "PodCompleted")
