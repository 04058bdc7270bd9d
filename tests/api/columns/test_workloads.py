from __future__ import annotations

from typing import Any

import pytest

from svc.api.columns import columns_for, descriptions, workloads
from tests.api.columns.support import ago, cells, headers

TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {
        "containers": [{"name": "nginx", "image": "nginx:1.25"}, {"name": "proxy", "image": "envoy:v1"}],
        "nodeSelector": {"kubernetes.io/os": "linux"},
    },
}
SELECTOR = {
    "matchLabels": {"app": "web"},
    "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}],
}


def workload(kind: str, spec: dict[str, Any], status: dict[str, Any] | None = None, **metadata: Any) -> dict[str, Any]:
    return {
        "kind": kind,
        "metadata": {"name": "web", "namespace": "default", "creationTimestamp": ago(hours=2, minutes=30), **metadata},
        "spec": spec,
        "status": status or {},
    }


def test_deployment_columns_and_cells() -> None:
    assert headers(workloads.DEPLOYMENT) == [
        ("Name", "string", "name", 0),
        ("Ready", "string", "", 0),
        ("Up-to-date", "string", "", 0),
        ("Available", "string", "", 0),
        ("Age", "string", "", 0),
        ("Containers", "string", "", 1),
        ("Images", "string", "", 1),
        ("Selector", "string", "", 1),
    ]
    obj = workload(
        "Deployment",
        {"replicas": 3, "selector": SELECTOR, "template": TEMPLATE},
        {"replicas": 3, "readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
    )
    assert cells(workloads.DEPLOYMENT, obj) == [
        "web",
        "2/3",
        3,
        2,
        "150m",
        "nginx,proxy",
        "nginx:1.25,envoy:v1",
        "app=web,tier in (a,b)",
    ]


def test_deployment_column_descriptions_come_from_the_api_documentation() -> None:
    described = {column.name: column.description for column in workloads.DEPLOYMENT}
    assert described["Ready"] == "Number of the pod with ready state"
    assert described["Up-to-date"] == descriptions.DEPLOYMENT_UPDATED
    assert described["Containers"] == "Names of each container in the template."
    assert described["Images"] == "Images referenced by each container in the template."
    assert described["Selector"].startswith("Label selector for pods.")


@pytest.mark.parametrize(
    ("selector", "written"),
    [(None, ""), ({}, ""), ({"matchExpressions": [{"key": "a", "operator": "Bad"}]}, "<invalid>")],
)
def test_deployment_selector_is_the_bare_selector_string(selector: Any, written: str) -> None:
    obj = workload("Deployment", {"replicas": 1, "selector": selector, "template": TEMPLATE})
    assert cells(workloads.DEPLOYMENT, obj)[-1] == written


def test_a_new_deployment_without_status_reads_zeroes() -> None:
    obj = workload("Deployment", {"replicas": 1, "selector": SELECTOR, "template": TEMPLATE})
    assert cells(workloads.DEPLOYMENT, obj)[1:4] == ["0/1", 0, 0]


def test_replica_set_columns_and_cells() -> None:
    assert headers(workloads.REPLICA_SET) == [
        ("Name", "string", "name", 0),
        ("Desired", "integer", "", 0),
        ("Current", "integer", "", 0),
        ("Ready", "integer", "", 0),
        ("Age", "string", "", 0),
        ("Containers", "string", "", 1),
        ("Images", "string", "", 1),
        ("Selector", "string", "", 1),
    ]
    obj = workload(
        "ReplicaSet",
        {"replicas": 3, "selector": {"matchLabels": {"app": "web", "pod-template-hash": "5d8f"}}, "template": TEMPLATE},
        {"replicas": 3, "readyReplicas": 1},
    )
    assert cells(workloads.REPLICA_SET, obj) == [
        "web",
        3,
        3,
        1,
        "150m",
        "nginx,proxy",
        "nginx:1.25,envoy:v1",
        "app=web,pod-template-hash=5d8f",
    ]


def test_replication_controller_cells_with_a_map_selector_and_no_template() -> None:
    assert [column.name for column in workloads.REPLICATION_CONTROLLER] == [
        "Name",
        "Desired",
        "Current",
        "Ready",
        "Age",
        "Containers",
        "Images",
        "Selector",
    ]
    obj = workload("ReplicationController", {"replicas": 2, "selector": {"app": "web"}}, {"replicas": 2})
    assert cells(workloads.REPLICATION_CONTROLLER, obj) == ["web", 2, 2, 0, "150m", "", "", "app=web"]


def test_stateful_set_columns_and_cells() -> None:
    assert headers(workloads.STATEFUL_SET) == [
        ("Name", "string", "name", 0),
        ("Ready", "string", "", 0),
        ("Age", "string", "", 0),
        ("Containers", "string", "", 1),
        ("Images", "string", "", 1),
    ]
    obj = workload("StatefulSet", {"replicas": 3, "template": TEMPLATE}, {"replicas": 2, "readyReplicas": 1})
    assert cells(workloads.STATEFUL_SET, obj) == ["web", "1/3", "150m", "nginx,proxy", "nginx:1.25,envoy:v1"]


def test_daemon_set_columns_and_cells() -> None:
    assert headers(workloads.DAEMON_SET) == [
        ("Name", "string", "name", 0),
        ("Desired", "integer", "", 0),
        ("Current", "integer", "", 0),
        ("Ready", "integer", "", 0),
        ("Up-to-date", "integer", "", 0),
        ("Available", "integer", "", 0),
        ("Node Selector", "string", "", 0),
        ("Age", "string", "", 0),
        ("Containers", "string", "", 1),
        ("Images", "string", "", 1),
        ("Selector", "string", "", 1),
    ]
    status = {
        "desiredNumberScheduled": 4,
        "currentNumberScheduled": 4,
        "numberReady": 3,
        "updatedNumberScheduled": 2,
        "numberAvailable": 3,
    }
    obj = workload("DaemonSet", {"selector": {"matchLabels": {"app": "web"}}, "template": TEMPLATE}, status)
    assert cells(workloads.DAEMON_SET, obj) == [
        "web",
        4,
        4,
        3,
        2,
        3,
        "kubernetes.io/os=linux",
        "150m",
        "nginx,proxy",
        "nginx:1.25,envoy:v1",
        "app=web",
    ]


def test_daemon_set_without_a_node_selector() -> None:
    obj = workload("DaemonSet", {"template": {"spec": {"containers": []}}})
    assert cells(workloads.DAEMON_SET, obj)[6] == "<none>"


def job(spec: dict[str, Any] | None = None, status: dict[str, Any] | None = None, **metadata: Any) -> dict[str, Any]:
    base = {"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "42"}}, "template": TEMPLATE}
    return workload("Job", {**base, **(spec or {})}, status, **metadata)


def condition(kind: str, status: str = "True") -> dict[str, str]:
    return {"type": kind, "status": status}


def test_job_columns_and_cells() -> None:
    assert headers(workloads.JOB) == [
        ("Name", "string", "name", 0),
        ("Status", "string", "", 0),
        ("Completions", "string", "", 0),
        ("Duration", "string", "", 0),
        ("Age", "string", "", 0),
        ("Containers", "string", "", 1),
        ("Images", "string", "", 1),
        ("Selector", "string", "", 1),
    ]
    status = {
        "succeeded": 1,
        "startTime": ago(minutes=10),
        "completionTime": ago(minutes=7, seconds=57),
        "conditions": [condition("SuccessCriteriaMet"), condition("Complete")],
    }
    obj = job({"completions": 1, "parallelism": 1}, status)
    assert cells(workloads.JOB, obj) == [
        "web",
        "Complete",
        "1/1",
        "2m3s",
        "150m",
        "nginx,proxy",
        "nginx:1.25,envoy:v1",
        "batch.kubernetes.io/controller-uid=42",
    ]


@pytest.mark.parametrize(
    ("conditions", "deleting", "status"),
    [
        ([], False, "Running"),
        ([condition("Complete", "False"), condition("Failed")], False, "Failed"),
        ([condition("Suspended")], True, "Terminating"),
        ([condition("Failed")], True, "Failed"),
        ([condition("Suspended")], False, "Suspended"),
        ([condition("FailureTarget")], False, "FailureTarget"),
        ([condition("SuccessCriteriaMet")], False, "SuccessCriteriaMet"),
        ([condition("Suspended", "False"), condition("Suspended")], False, "Running"),
    ],
)
def test_job_status(conditions: list[dict[str, str]], deleting: bool, status: str) -> None:
    metadata = {"deletionTimestamp": ago(seconds=1)} if deleting else {}
    obj = job(status={"conditions": conditions}, **metadata)
    assert cells(workloads.JOB, obj)[1] == status


@pytest.mark.parametrize(
    ("spec", "completions"),
    [({"completions": 3, "parallelism": 3}, "2/3"), ({"parallelism": 4}, "2/1 of 4"), ({}, "2/1")],
)
def test_job_completions(spec: dict[str, Any], completions: str) -> None:
    assert cells(workloads.JOB, job(spec, {"succeeded": 2}))[2] == completions


@pytest.mark.parametrize(
    ("status", "duration"),
    [({}, ""), ({"startTime": ago(seconds=90)}, "90s")],
    ids=["not-started", "still-running"],
)
def test_job_duration(status: dict[str, Any], duration: str) -> None:
    assert cells(workloads.JOB, job(status=status))[3] == duration


def cron_job(spec: dict[str, Any] | None = None, status: dict[str, Any] | None = None) -> dict[str, Any]:
    base = {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": TEMPLATE}}}
    return workload("CronJob", {**base, **(spec or {})}, status)


def test_cron_job_columns_and_cells() -> None:
    assert headers(workloads.CRON_JOB) == [
        ("Name", "string", "name", 0),
        ("Schedule", "string", "", 0),
        ("Timezone", "string", "", 0),
        ("Suspend", "boolean", "", 0),
        ("Active", "integer", "", 0),
        ("Last Schedule", "string", "", 0),
        ("Age", "string", "", 0),
        ("Containers", "string", "", 1),
        ("Images", "string", "", 1),
        ("Selector", "string", "", 1),
    ]
    obj = cron_job(
        {"timeZone": "Europe/Berlin", "suspend": False},
        {"active": [{"kind": "Job", "name": "web-1"}], "lastScheduleTime": ago(seconds=30)},
    )
    assert cells(workloads.CRON_JOB, obj) == [
        "web",
        "*/5 * * * *",
        "Europe/Berlin",
        "False",
        1,
        "30s",
        "150m",
        "nginx,proxy",
        "nginx:1.25,envoy:v1",
        "<none>",
    ]


def test_a_cron_job_that_never_ran() -> None:
    assert cells(workloads.CRON_JOB, cron_job({"suspend": True}))[2:6] == ["<none>", "True", 0, "<none>"]
    assert cells(workloads.CRON_JOB, cron_job())[3] == "<unset>"


@pytest.mark.parametrize(
    ("group", "kind", "columns"),
    [
        ("apps", "Deployment", workloads.DEPLOYMENT),
        ("apps", "ReplicaSet", workloads.REPLICA_SET),
        ("apps", "StatefulSet", workloads.STATEFUL_SET),
        ("apps", "DaemonSet", workloads.DAEMON_SET),
        ("batch", "Job", workloads.JOB),
        ("batch", "CronJob", workloads.CRON_JOB),
        ("", "ReplicationController", workloads.REPLICATION_CONTROLLER),
    ],
)
def test_workloads_are_registered_under_their_group(group: str, kind: str, columns: tuple[Any, ...]) -> None:
    assert columns_for(group, kind) is columns
