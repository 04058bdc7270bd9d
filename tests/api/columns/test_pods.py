from __future__ import annotations

from typing import Any

import pytest

from svc.api.columns import columns_for, descriptions, pods
from tests.api.columns.support import ago, cells, headers


def pod(
    *,
    phase: str = "Running",
    containers: int = 1,
    init: int = 0,
    sidecars: int = 0,
    statuses: list[dict[str, Any]] | None = None,
    init_statuses: list[dict[str, Any]] | None = None,
    conditions: list[dict[str, Any]] | None = None,
    **status: Any,
) -> dict[str, Any]:
    init_specs = [{"name": f"init-{index}", "image": "busybox"} for index in range(init)]
    init_specs += [
        {"name": f"sidecar-{index}", "image": "envoy", "restartPolicy": "Always"} for index in range(sidecars)
    ]
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "default", "creationTimestamp": ago(minutes=5)},
        "spec": {
            "containers": [{"name": f"app-{index}", "image": "nginx"} for index in range(containers)],
            "initContainers": init_specs,
            "nodeName": "node-1",
        },
        "status": {"phase": phase, "conditions": conditions or [], **status},
    }
    if statuses is not None:
        obj["status"]["containerStatuses"] = statuses
    if init_statuses is not None:
        obj["status"]["initContainerStatuses"] = init_statuses
    return obj


def running(ready: bool = True, restarts: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "name": "app",
        "ready": ready,
        "restartCount": restarts,
        "state": {"running": {"startedAt": ago(minutes=4)}},
        **extra,
    }


def waiting(reason: str, restarts: int = 0, **extra: Any) -> dict[str, Any]:
    return {"name": "app", "ready": False, "restartCount": restarts, "state": {"waiting": {"reason": reason}}, **extra}


def terminated(exit_code: int, reason: str = "", signal: int = 0, **extra: Any) -> dict[str, Any]:
    state = {"exitCode": exit_code, "reason": reason, "signal": signal, "finishedAt": ago(minutes=1)}
    return {"name": "app", "ready": False, "restartCount": 0, "state": {"terminated": state}, **extra}


def crashed(minutes_ago: int) -> dict[str, Any]:
    return {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": ago(minutes=minutes_ago)}}


READY_TRUE = {"type": "Ready", "status": "True"}
INITIALIZED = {"type": "Initialized", "status": "True"}


def test_pod_column_definitions_match_upstream() -> None:
    assert headers(pods.COLUMNS) == [
        ("Name", "string", "name", 0),
        ("Ready", "string", "", 0),
        ("Status", "string", "", 0),
        ("Restarts", "string", "", 0),
        ("Age", "string", "", 0),
        ("IP", "string", "", 1),
        ("Node", "string", "", 1),
        ("Nominated Node", "string", "", 1),
        ("Readiness Gates", "string", "", 1),
    ]
    described = {column.name: column.description for column in pods.COLUMNS}
    assert described["Name"] == descriptions.NAME
    assert described["Ready"] == "The aggregate readiness state of this pod for accepting traffic."
    assert described["Status"] == "The aggregate status of the containers in this pod."
    assert described["Restarts"] == (
        "The number of times the containers in this pod have been restarted and when the last container in "
        "this pod has restarted."
    )
    assert described["Age"] == descriptions.CREATION_TIMESTAMP
    assert described["IP"].startswith("podIP address allocated to the pod.")


def test_a_running_pod_prints_every_cell() -> None:
    obj = pod(statuses=[running()], podIP="10.1.0.7", podIPs=[{"ip": "10.1.0.7"}], conditions=[READY_TRUE])
    assert cells(pods.COLUMNS, obj) == ["web-0", "1/1", "Running", "0", "5m", "10.1.0.7", "node-1", "<none>", "<none>"]


@pytest.mark.parametrize(
    ("obj", "ready", "status"),
    [
        (pod(phase="Pending", statuses=None), "0/1", "Pending"),
        (pod(phase="Pending", statuses=[waiting("ContainerCreating")]), "0/1", "ContainerCreating"),
        (pod(phase="Pending", statuses=[waiting("ImagePullBackOff")]), "0/1", "ImagePullBackOff"),
        (pod(statuses=[waiting("CrashLoopBackOff", restarts=5)]), "0/1", "CrashLoopBackOff"),
        (pod(containers=2, statuses=[running(), running(ready=False)]), "1/2", "Running"),
        (pod(phase="Succeeded", statuses=[terminated(0, "Completed")]), "0/1", "Completed"),
        (pod(phase="Failed", statuses=[terminated(1, "Error")]), "0/1", "Error"),
        (pod(phase="Failed", statuses=[terminated(137)]), "0/1", "ExitCode:137"),
        (pod(phase="Failed", statuses=[terminated(0, signal=9)]), "0/1", "Signal:9"),
        (pod(phase="Failed", reason="Evicted", statuses=[]), "0/1", "Evicted"),
        (
            pod(
                phase="Pending",
                statuses=None,
                conditions=[{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
            ),
            "0/1",
            "SchedulingGated",
        ),
    ],
    ids=[
        "pending",
        "container-creating",
        "image-pull-backoff",
        "crash-loop",
        "half-ready",
        "completed",
        "error",
        "exit-code",
        "signal",
        "evicted",
        "scheduling-gated",
    ],
)
def test_ready_and_status_of_app_containers(obj: dict[str, Any], ready: str, status: str) -> None:
    assert cells(pods.COLUMNS, obj)[1:3] == [ready, status]


@pytest.mark.parametrize(
    ("init_statuses", "status"),
    [
        ([running(name="init-0"), waiting("PodInitializing", name="init-1")], "Init:0/2"),
        ([terminated(0, "Completed", name="init-0"), running(name="init-1")], "Init:1/2"),
        (
            [waiting("CrashLoopBackOff", name="init-0"), waiting("PodInitializing", name="init-1")],
            "Init:CrashLoopBackOff",
        ),
        ([terminated(1, "Error", name="init-0"), waiting("PodInitializing", name="init-1")], "Init:Error"),
        ([terminated(2, name="init-0"), waiting("PodInitializing", name="init-1")], "Init:ExitCode:2"),
        ([terminated(0, signal=9, name="init-0"), waiting("PodInitializing", name="init-1")], "Init:1/2"),
        ([terminated(1, signal=15, name="init-0"), waiting("PodInitializing", name="init-1")], "Init:Signal:15"),
    ],
    ids=["first-running", "second-running", "crash-loop", "error", "exit-code", "zero-exit-is-done", "signal"],
)
def test_status_while_initializing(init_statuses: list[dict[str, Any]], status: str) -> None:
    obj = pod(phase="Pending", init=2, init_statuses=init_statuses, statuses=[waiting("PodInitializing")])
    assert cells(pods.COLUMNS, obj)[1:3] == ["0/1", status]


def test_restarts_of_a_crashing_init_container_count_while_initializing() -> None:
    init_status = waiting("CrashLoopBackOff", restarts=3, name="init-0", lastState=crashed(minutes_ago=2))
    obj = pod(phase="Pending", init=1, init_statuses=[init_status], statuses=[waiting("PodInitializing")])
    assert cells(pods.COLUMNS, obj)[1:4] == ["0/1", "Init:CrashLoopBackOff", "3 (2m ago)"]


def test_restarts_show_when_the_last_container_restarted() -> None:
    statuses = [
        running(restarts=2, lastState=crashed(minutes_ago=40)),
        running(restarts=3, name="b", lastState=crashed(minutes_ago=3)),
    ]
    obj = pod(containers=2, statuses=statuses, conditions=[READY_TRUE])
    assert cells(pods.COLUMNS, obj)[3] == "5 (3m ago)"


def test_restarts_without_a_last_termination_are_a_bare_count() -> None:
    obj = pod(statuses=[running(restarts=4)])
    assert cells(pods.COLUMNS, obj)[3] == "4"


def test_a_started_sidecar_counts_towards_ready_and_its_restarts_stay_counted() -> None:
    sidecar = running(restarts=1, name="sidecar-0", started=True, lastState=crashed(minutes_ago=7))
    obj = pod(sidecars=1, init_statuses=[sidecar], statuses=[running()], conditions=[INITIALIZED, READY_TRUE])
    assert cells(pods.COLUMNS, obj)[1:4] == ["2/2", "Running", "1 (7m ago)"]


def test_a_sidecar_not_yet_started_keeps_the_pod_initializing() -> None:
    sidecar = running(ready=False, name="sidecar-0", started=False)
    obj = pod(phase="Pending", sidecars=1, init_statuses=[sidecar], statuses=[waiting("PodInitializing")])
    assert cells(pods.COLUMNS, obj)[1:3] == ["0/2", "Init:0/1"]


@pytest.mark.parametrize(
    ("conditions", "status"),
    [([READY_TRUE], "Running"), ([], "NotReady")],
    ids=["ready-condition", "no-ready-condition"],
)
def test_completed_turns_back_while_a_container_still_runs(conditions: list[dict[str, Any]], status: str) -> None:
    obj = pod(containers=2, statuses=[terminated(0, "Completed"), running(name="b")], conditions=conditions)
    assert cells(pods.COLUMNS, obj)[1:3] == ["1/2", status]


def test_completed_gives_way_to_a_failed_containers_reason() -> None:
    obj = pod(phase="Failed", containers=2, statuses=[terminated(0, "Completed"), terminated(1, "Error", name="b")])
    assert cells(pods.COLUMNS, obj)[2] == "Error"


def test_a_deleted_pod_that_still_runs_is_terminating() -> None:
    obj = pod(statuses=[running()], conditions=[READY_TRUE])
    obj["metadata"]["deletionTimestamp"] = ago(seconds=3)
    assert cells(pods.COLUMNS, obj)[2] == "Terminating"


def test_a_deleted_pod_on_a_lost_node_is_unknown() -> None:
    obj = pod(statuses=[running()], reason="NodeLost")
    obj["metadata"]["deletionTimestamp"] = ago(seconds=3)
    assert cells(pods.COLUMNS, obj)[2] == "Unknown"


def test_a_deleted_pod_that_already_finished_keeps_its_status() -> None:
    obj = pod(phase="Succeeded", statuses=[terminated(0, "Completed")])
    obj["metadata"]["deletionTimestamp"] = ago(seconds=3)
    assert cells(pods.COLUMNS, obj)[2] == "Completed"


def test_wide_cells_of_a_pod_with_readiness_gates_and_a_nominated_node() -> None:
    obj = pod(
        phase="Pending",
        statuses=None,
        nominatedNodeName="node-2",
        podIPs=[{"ip": "fd00::7"}],
        conditions=[
            {"type": "example.com/gate-a", "status": "True"},
            {"type": "example.com/gate-b", "status": "False"},
        ],
    )
    obj["spec"]["nodeName"] = ""
    obj["spec"]["readinessGates"] = [{"conditionType": "example.com/gate-a"}, {"conditionType": "example.com/gate-b"}]
    assert cells(pods.COLUMNS, obj)[5:] == ["fd00::7", "<none>", "node-2", "1/2"]


def test_the_pod_ip_field_wins_over_the_ip_list() -> None:
    obj = pod(statuses=[running()], podIP="10.0.0.1", podIPs=[{"ip": "10.0.0.2"}])
    assert cells(pods.COLUMNS, obj)[5] == "10.0.0.1"


def test_a_bare_pod_prints_without_failing() -> None:
    assert cells(pods.COLUMNS, {"metadata": {"name": "p"}}) == [
        "p",
        "0/0",
        "",
        "0",
        "<unknown>",
        "<none>",
        "<none>",
        "<none>",
        "<none>",
    ]


@pytest.mark.parametrize(
    ("phase", "expected"),
    [
        (
            "Succeeded",
            [
                {
                    "type": "Completed",
                    "status": "True",
                    "reason": "Succeeded",
                    "message": "The pod has completed successfully.",
                }
            ],
        ),
        ("Failed", [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]),
        ("Running", []),
    ],
)
def test_row_conditions_mark_finished_pods(phase: str, expected: list[dict[str, str]]) -> None:
    assert pods.row_conditions(pod(phase=phase)) == expected


def test_pods_are_registered_for_the_core_group() -> None:
    assert columns_for("", "Pod") is pods.COLUMNS
