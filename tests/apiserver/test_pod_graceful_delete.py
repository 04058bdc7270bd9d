"""Graceful deletion of pods (upstream `BeforeDelete` with the pod strategy's `CheckGracefulDelete`): a pod
on a node stays, terminating, for its grace period until deleted again with a shorter one."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _pod(api, name: str, *, node: str = "node-1", grace: int | None = None, finalizers: list[str] | None = None):
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "busybox"}]}
    if node:
        spec["nodeName"] = node
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    metadata: dict[str, Any] = {"name": name}
    if finalizers:
        metadata["finalizers"] = finalizers
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
    return api.request("POST", PODS, body=body).json()


def _delete(api, name: str, **options: Any):
    return api.request("DELETE", f"{PODS}/{name}", body={"kind": "DeleteOptions", "apiVersion": "v1", **options})


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _exists(api, name: str) -> bool:
    return api.request("GET", f"{PODS}/{name}").status == 200


def test_a_pod_on_a_node_stays_for_its_termination_grace_period(api):
    created = _pod(api, "web")
    response = _delete(api, "web")
    assert response.status == 200
    metadata = response.json()["metadata"]
    assert metadata["deletionGracePeriodSeconds"] == 30
    assert abs(_seconds(metadata["deletionTimestamp"]) - (_seconds(created["metadata"]["creationTimestamp"]) + 30)) < 5
    assert _exists(api, "web")


def test_the_requested_grace_period_wins_over_the_pods(api):
    _pod(api, "web", grace=60)
    metadata = _delete(api, "web", gracePeriodSeconds=10).json()["metadata"]
    assert metadata["deletionGracePeriodSeconds"] == 10


def test_a_negative_grace_period_counts_as_one_second(api):
    _pod(api, "web")
    metadata = _delete(api, "web", gracePeriodSeconds=-5).json()["metadata"]
    assert metadata["deletionGracePeriodSeconds"] == 1


def test_an_unscheduled_pod_is_deleted_at_once(api):
    _pod(api, "pending", node="")
    response = _delete(api, "pending")
    assert response.status == 200
    assert not _exists(api, "pending")


def test_a_terminated_pod_is_deleted_at_once(api):
    pod = _pod(api, "done")
    pod["status"] = {"phase": "Succeeded"}
    api.request("PUT", f"{PODS}/done/status", body=pod)
    _delete(api, "done")
    assert not _exists(api, "done")


def test_a_zero_grace_period_deletes_a_running_pod_at_once(api):
    _pod(api, "web")
    _delete(api, "web", gracePeriodSeconds=0)
    assert not _exists(api, "web")


def test_a_pending_graceful_deletion_answers_with_the_object_unchanged(api):
    _pod(api, "web")
    first = _delete(api, "web").json()
    again = _delete(api, "web")
    assert again.status == 200
    assert again.json()["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    longer = _delete(api, "web", gracePeriodSeconds=100).json()
    assert longer["metadata"]["deletionTimestamp"] == first["metadata"]["deletionTimestamp"]


def test_a_shorter_grace_period_moves_the_deletion_earlier(api):
    _pod(api, "web")
    first = _delete(api, "web").json()["metadata"]
    shorter = _delete(api, "web", gracePeriodSeconds=5).json()["metadata"]
    assert shorter["deletionGracePeriodSeconds"] == 5
    assert _seconds(first["deletionTimestamp"]) - _seconds(shorter["deletionTimestamp"]) == 25
    assert _exists(api, "web")


def test_a_terminating_pod_is_gone_when_deleted_again_with_no_grace(api):
    _pod(api, "web")
    _delete(api, "web")
    response = _delete(api, "web", gracePeriodSeconds=0)
    assert response.status == 200
    assert not _exists(api, "web")


def test_removing_the_last_finalizer_keeps_a_pod_whose_grace_period_runs(api):
    _pod(api, "web", finalizers=["example.com/hold"])
    _delete(api, "web")
    patch = {"metadata": {"finalizers": None}}
    api.request("PATCH", f"{PODS}/web", body=patch, content_type="application/merge-patch+json")
    assert _exists(api, "web")
    _delete(api, "web", gracePeriodSeconds=0)
    assert not _exists(api, "web")


def test_removing_the_last_finalizer_completes_a_deletion_without_grace(api):
    _pod(api, "web", finalizers=["example.com/hold"])
    metadata = _delete(api, "web", gracePeriodSeconds=0).json()["metadata"]
    assert metadata["deletionGracePeriodSeconds"] == 0
    patch = {"metadata": {"finalizers": None}}
    api.request("PATCH", f"{PODS}/web", body=patch, content_type="application/merge-patch+json")
    assert not _exists(api, "web")


def test_a_graceful_deletion_bumps_the_generation(api):
    created = _pod(api, "web")
    metadata = _delete(api, "web").json()["metadata"]
    assert metadata["generation"] == created["metadata"]["generation"] + 1


def test_a_pending_graceful_deletion_does_not_change_finalizers(api):
    _pod(api, "web")
    _delete(api, "web")
    again = _delete(api, "web", propagationPolicy="Orphan").json()
    assert "finalizers" not in again["metadata"]


def test_a_configmap_is_still_deleted_at_once(api):
    path = "/api/v1/namespaces/default/configmaps"
    api.request("POST", path, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    response = api.request("DELETE", f"{path}/c", body={"gracePeriodSeconds": 30})
    assert response.json()["kind"] == "Status"
    assert api.request("GET", f"{path}/c").status == 404


def _events_since(api, resource_version: str) -> list[tuple[str, dict[str, Any]]]:
    response = api.request("GET", f"{PODS}?watch=1&resourceVersion={resource_version}&timeoutSeconds=1")
    events = [json.loads(line) for line in response.body.splitlines() if line.strip()]
    return [(event["type"], event["object"]) for event in events]


def test_a_deletion_without_grace_is_written_terminating_before_the_removal(api):
    created = _pod(api, "web")
    answer = _delete(api, "web", gracePeriodSeconds=0).json()
    assert answer["metadata"]["deletionGracePeriodSeconds"] == 0
    events = _events_since(api, created["metadata"]["resourceVersion"])
    assert [kind for kind, _ in events] == ["MODIFIED", "DELETED"]
    terminating = events[0][1]["metadata"]
    assert terminating["deletionGracePeriodSeconds"] == 0 and "deletionTimestamp" in terminating


def test_a_dry_run_deletion_without_grace_leaves_the_pod(api):
    _pod(api, "web")
    response = api.request(
        "DELETE", f"{PODS}/web?dryRun=All", body={"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0}
    )
    assert response.json()["metadata"]["deletionGracePeriodSeconds"] == 0
    assert "deletionTimestamp" not in api.request("GET", f"{PODS}/web").json()["metadata"]
