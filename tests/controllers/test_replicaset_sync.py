"""The replicaset controller's sync over seeded caches: creations, deletions, adoption, status."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.replicaset import REPLICATION_CONTROLLERS, ReplicaSetController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
UID = "rs-uid"


def replica_set(replicas: int, **status: Any) -> Obj:
    return {
        "metadata": {"name": "web", "namespace": "team", "uid": UID, "generation": 2},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c"}]}},
        },
        "status": status,
    }


def pod(
    name: str, *, owned: bool = True, ready: bool = False, node: str = "", created: str = "2026-01-01T00:00:00Z"
) -> Obj:
    metadata: Obj = {
        "name": name,
        "namespace": "team",
        "uid": f"{name}-uid",
        "labels": {"app": "web"},
        "creationTimestamp": created,
    }
    if owned:
        metadata["ownerReferences"] = [{"kind": "ReplicaSet", "name": "web", "uid": UID, "controller": True}]
    conditions = [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}] if ready else []
    return {
        "metadata": metadata,
        "spec": {"nodeName": node} if node else {},
        "status": {"phase": "Running" if ready else "Pending", "conditions": conditions},
    }


def calls(client: Any, verb: str) -> list[tuple[str, Obj | None]]:
    return [(path, body) for called, path, body in client.calls if called == verb]


def run(owner: Obj, pods: list[Obj]) -> Any:
    async def scenario() -> Any:
        context, client = make_context()
        controller = ReplicaSetController(context)
        controller.owners.replace([owner])
        controller.pods.replace(pods)
        await controller.sync("team/web")
        return client, controller

    return asyncio.run(scenario())


def test_missing_pods_are_created_from_the_template_with_a_controller_reference():
    client, _ = run(replica_set(3), [pod("web-a")])
    created = [body for path, body in calls(client, "create") if path == "/api/v1/namespaces/team/pods"]
    assert len(created) == 2
    reference = created[0]["metadata"]["ownerReferences"][0]
    assert reference == {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "web",
        "uid": UID,
        "controller": True,
        "blockOwnerDeletion": True,
    }
    assert created[0]["metadata"]["generateName"] == "web-"
    assert created[0]["metadata"]["labels"] == {"app": "web"}


def test_a_second_sync_before_the_creations_are_seen_creates_nothing_more():
    async def scenario() -> None:
        context, client = make_context()
        controller = ReplicaSetController(context)
        controller.owners.replace([replica_set(2)])
        await controller.sync("team/web")
        await controller.sync("team/web")
        assert len(calls(client, "create")) == 2

    asyncio.run(scenario())


def test_surplus_pods_go_unscheduled_and_not_ready_first():
    pods = [pod("ready", ready=True, node="n1"), pod("pending"), pod("scheduled", node="n1")]
    client, _ = run(replica_set(1), pods)
    deleted = sorted(path.rsplit("/", 1)[1] for path, _ in calls(client, "delete"))
    assert deleted == ["pending", "scheduled"]


def test_a_matching_orphan_is_adopted_rather_than_a_pod_created():
    client, _ = run(replica_set(1), [pod("orphan", owned=False)])
    assert calls(client, "create") == []
    (path, body), *_ = calls(client, "patch:merge")
    assert path == "/api/v1/namespaces/team/pods/orphan"
    assert body["metadata"]["ownerReferences"][0]["uid"] == UID
    assert body["metadata"]["uid"] == "orphan-uid"


def test_status_counts_replicas_ready_and_available():
    client, _ = run(replica_set(2), [pod("a", ready=True, node="n1"), pod("b", node="n1")])
    (path, body), *_ = calls(client, "update")
    assert path == "/apis/apps/v1/namespaces/team/replicasets/web/status"
    assert body["status"] == {
        "replicas": 2,
        "fullyLabeledReplicas": 2,
        "readyReplicas": 1,
        "availableReplicas": 1,
        "observedGeneration": 2,
    }


def test_a_replication_controller_selects_by_its_label_map():
    async def scenario() -> None:
        context, client = make_context()
        controller = ReplicaSetController(context, REPLICATION_CONTROLLERS)
        owner = replica_set(1)
        owner["spec"]["selector"] = {"app": "web"}
        controller.owners.replace([owner])
        await controller.sync("team/web")
        created = [body for path, body in calls(client, "create")]
        assert created[0]["metadata"]["ownerReferences"][0]["kind"] == "ReplicationController"
        assert created[0]["metadata"]["ownerReferences"][0]["apiVersion"] == "v1"

    asyncio.run(scenario())


def test_creations_and_deletions_are_recorded_as_upstreams_events() -> None:
    client, _ = run(replica_set(1), [pod("a"), pod("b", node="n1")])
    deleted = [body for verb, _, body in client.events if verb == "create"]
    assert [(event["reason"], event["message"]) for event in deleted] == [("SuccessfulDelete", "Deleted pod: a")]
    assert deleted[0]["involvedObject"] == {
        "kind": "ReplicaSet",
        "namespace": "team",
        "name": "web",
        "uid": UID,
        "apiVersion": "apps/v1",
    }
    assert deleted[0]["source"] == {"component": "replicaset-controller"}
    client, _ = run(replica_set(1), [])
    assert [body["reason"] for verb, _, body in client.events if verb == "create"] == ["SuccessfulCreate"]


def test_a_creation_observed_while_adopting_does_not_let_that_sync_create_again():
    """The sync reads its pods, then awaits an adoption; the add of a pod created earlier arrives
    meanwhile and meets the expectation. The sync must keep to the expectations it found at its start
    (upstream checks them before reading the cache), or it creates that pod a second time."""

    async def scenario() -> Any:
        context, client = make_context()
        controller = ReplicaSetController(context)
        controller.owners.replace([replica_set(3)])
        seen = [pod("web-a"), pod("orphan", owned=False)]
        controller.pods.replace(seen)
        controller.expectations.expect("team/web", adds=1)
        patched = client.patch

        async def patch(path: str, body: Obj, *, patch_type: str = "merge") -> Obj:
            controller.pods.replace([*seen, pod("web-b")])  # the watch brings the pod created earlier
            return await patched(path, body, patch_type=patch_type)

        client.patch = patch
        await controller.sync("team/web")
        return client

    client = asyncio.run(scenario())
    assert [path for path, _ in calls(client, "patch:merge")] == ["/api/v1/namespaces/team/pods/orphan"]
    assert calls(client, "create") == []
