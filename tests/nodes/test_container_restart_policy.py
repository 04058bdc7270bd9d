"""The simulated kubelet honours a container's own restart policy and exit-code rules
(ContainerRestartRules) when its containers exit, as upstream's `ContainerShouldRestart` decides."""

from __future__ import annotations

from typing import Any

import pytest

from svc.nodes.pod_status import container_restarts, ended_status, running_status

WALL = 1_800_000_000.0


def _rule(operator: str, values: list[int], action: str = "Restart") -> dict[str, Any]:
    return {"action": action, "exitCodes": {"operator": operator, "values": values}}


CASES = [
    ("no own policy follows the pod's Never", {}, "Never", 1, False),
    ("no own policy follows the pod's OnFailure", {}, "OnFailure", 1, True),
    ("own Always under a Never pod", {"restartPolicy": "Always"}, "Never", 0, True),
    ("own Never under an Always pod", {"restartPolicy": "Never"}, "Always", 1, False),
    ("own OnFailure after success", {"restartPolicy": "OnFailure"}, "Never", 0, False),
    (
        "an In rule that matches",
        {"restartPolicy": "Never", "restartPolicyRules": [_rule("In", [42])]},
        "Never",
        42,
        True,
    ),
    (
        "an In rule that does not match",
        {"restartPolicy": "Never", "restartPolicyRules": [_rule("In", [42])]},
        "Never",
        1,
        False,
    ),
    (
        "a NotIn rule that matches",
        {"restartPolicy": "Never", "restartPolicyRules": [_rule("NotIn", [0])]},
        "Never",
        3,
        True,
    ),
    (
        "no rule matches: the own policy",
        {"restartPolicy": "OnFailure", "restartPolicyRules": [_rule("In", [7])]},
        "Never",
        3,
        True,
    ),
    (
        "RestartAllContainers restarts the container",
        {"restartPolicy": "Never", "restartPolicyRules": [_rule("In", [5], "RestartAllContainers")]},
        "Never",
        5,
        True,
    ),
]


@pytest.mark.parametrize(("name", "fields", "pod_policy", "code", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_containers_restart_decision(name: str, fields: dict, pod_policy: str, code: int, expected: bool) -> None:
    assert container_restarts({"name": "c", **fields}, pod_policy, code) is expected


def _running_pod(containers: list[dict[str, Any]], policy: str = "Never") -> dict[str, Any]:
    pod = {"metadata": {"name": "p", "uid": "u"}, "spec": {"restartPolicy": policy, "containers": containers}}
    pod["status"] = running_status(pod, "10.0.0.1", "10.1.0.1", WALL)
    return pod


def _states(status: dict[str, Any]) -> dict[str, tuple[str, int]]:
    return {c["name"]: (next(iter(c["state"])), c["restartCount"]) for c in status["containerStatuses"]}


def test_a_container_that_restarts_keeps_the_pod_running_beside_one_that_ended() -> None:
    pod = _running_pod([{"name": "worker", "restartPolicy": "Always"}, {"name": "job"}])
    status = ended_status(pod, 0, WALL + 5)
    assert status["phase"] == "Running"
    assert _states(status) == {"worker": ("running", 1), "job": ("terminated", 0)}
    ready = {c["type"]: c for c in status["conditions"]}["Ready"]
    assert (ready["status"], ready["reason"]) == ("False", "ContainersNotReady")
    again = ended_status({**pod, "status": status}, 0, WALL + 10)
    assert _states(again) == {"worker": ("running", 2), "job": ("terminated", 0)}
    assert again["containerStatuses"][1] == status["containerStatuses"][1]


def test_the_pod_ends_once_no_container_restarts() -> None:
    pod = _running_pod([{"name": "a", "restartPolicy": "Never"}, {"name": "b"}], policy="Never")
    status = ended_status(pod, 3, WALL + 5)
    assert status["phase"] == "Failed"
    assert _states(status) == {"a": ("terminated", 0), "b": ("terminated", 0)}


def test_a_matching_rule_restarts_a_container_of_a_never_pod() -> None:
    pod = _running_pod([{"name": "c", "restartPolicy": "Never", "restartPolicyRules": [_rule("In", [42])]}])
    status = ended_status(pod, 42, WALL + 5)
    assert status["phase"] == "Running"
    assert _states(status) == {"c": ("running", 1)}
    assert status["containerStatuses"][0]["lastState"]["terminated"]["exitCode"] == 42
