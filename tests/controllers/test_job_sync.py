"""The job controller's sync over seeded caches: creations, counting, failure and suspension."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.job import JobController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
UID = "job-uid"
FINALIZER = "batch.svc.io/job-tracking"


def job(**spec: Any) -> Obj:
    return {
        "metadata": {"name": "work", "namespace": "team", "uid": UID},
        "spec": {
            "completions": 2,
            "parallelism": 2,
            "backoffLimit": 6,
            "selector": {"matchLabels": {"batch.svc.io/controller-uid": UID}},
            "template": {
                "metadata": {"labels": {"batch.svc.io/controller-uid": UID}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "main"}]},
            },
            **spec,
        },
        "status": {"startTime": "2026-01-01T00:00:00Z"},
    }


def pod(name: str, phase: str, *, code: int = 0, finalizer: bool = True) -> Obj:
    metadata: Obj = {
        "name": name,
        "namespace": "team",
        "uid": f"{name}-uid",
        "labels": {"batch.svc.io/controller-uid": UID},
        "ownerReferences": [{"kind": "Job", "name": "work", "uid": UID, "controller": True}],
    }
    if finalizer:
        metadata["finalizers"] = [FINALIZER]
    state = (
        {"terminated": {"exitCode": code, "finishedAt": "2026-01-01T00:00:00Z"}}
        if phase in ("Succeeded", "Failed")
        else {}
    )
    return {"metadata": metadata, "status": {"phase": phase, "containerStatuses": [{"name": "main", "state": state}]}}


def run(owner: Obj, pods: list[Obj]) -> Any:
    async def scenario() -> Any:
        context, client = make_context()
        controller = JobController(context)
        controller.jobs.replace([owner])
        controller.pods.replace(pods)
        await controller.sync("team/work")
        return client

    return asyncio.run(scenario())


def calls(client: Any, verb: str) -> list[tuple[str, Obj | None]]:
    return [(path, body) for called, path, body in client.calls if called == verb]


def last_status(client: Any) -> Obj:
    return calls(client, "update")[-1][1]["status"]


def test_pods_are_created_with_the_tracking_finalizer():
    client = run(job(), [])
    created = [body for _, body in calls(client, "create")]
    assert len(created) == 2
    assert created[0]["metadata"]["finalizers"] == [FINALIZER]
    assert created[0]["metadata"]["generateName"] == "work-"


def test_a_finished_pod_is_recorded_then_released_then_counted():
    client = run(job(), [pod("a", "Succeeded"), pod("b", "Running")])
    first, *_ = calls(client, "update")
    assert first[1]["status"]["uncountedTerminatedPods"] == {"succeeded": ["a-uid"]}
    (path, body), *_ = calls(client, "patch:merge")
    assert path == "/api/v1/namespaces/team/pods/a"
    assert body["metadata"]["finalizers"] == []
    final = last_status(client)
    assert (final["succeeded"], final["active"], final["uncountedTerminatedPods"]) == (1, 1, {})


def test_a_fail_job_rule_fails_the_job_with_the_rules_message():
    policy = {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}
    client = run(job(podFailurePolicy=policy), [pod("a", "Failed", code=42)])
    conditions = {c["type"]: c for c in last_status(client)["conditions"]}
    assert conditions["FailureTarget"]["reason"] == "PodFailurePolicy"
    assert conditions["Failed"]["message"] == (
        "Container main for pod team/a failed with exit code 42 matching FailJob rule at index 0"
    )


def test_failures_beyond_the_backoff_limit_fail_the_job():
    pods = [pod("a", "Failed", code=1), pod("b", "Failed", code=1)]
    client = run(job(backoffLimit=1), pods)
    failed = next(c for c in last_status(client)["conditions"] if c["type"] == "Failed")
    assert (failed["reason"], failed["message"]) == (
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
    )


def test_a_suspended_job_deletes_its_active_pods():
    client = run(job(suspend=True), [pod("a", "Running")])
    assert [path for path, _ in calls(client, "delete")] == ["/api/v1/namespaces/team/pods/a"]
    suspended = next(c for c in last_status(client)["conditions"] if c["type"] == "Suspended")
    assert (suspended["status"], suspended["reason"]) == ("True", "JobSuspended")


def test_job_events_name_the_pods_and_the_outcome():
    pods = [pod("a", "Failed", code=1), pod("b", "Failed", code=1)]
    client = run(job(backoffLimit=1), pods)
    events = [(body["type"], body["reason"], body["message"]) for _, _, body in client.events]
    assert ("Warning", "BackoffLimitExceeded", "Job has reached the specified backoff limit") in events
    client = run(job(suspend=True), [pod("a", "Running")])
    events = [(body["reason"], body["message"]) for _, _, body in client.events]
    assert events == [("SuccessfulDelete", "Deleted pod: a"), ("Suspended", "Job suspended")]
