"""The disruption controller's sync over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.client.discovery import ApiResource
from svc.client.workers import RequeueAfter
from svc.controllers import disruption
from svc.controllers.deployment_math import rfc3339
from svc.controllers.disruption import DisruptionController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
STATUS_PATH = "/apis/policy/v1/namespaces/team/poddisruptionbudgets/pdb/status"
NOW = rfc3339(1000.0)


def budget(spec: Obj, status: Obj | None = None) -> Obj:
    spec = {"selector": {"matchLabels": {"app": "web"}}, **spec}
    return {"metadata": {"name": "pdb", "namespace": "team", "generation": 2}, "spec": spec, "status": status or {}}


def pod(name: str, *, ready: bool = True, owner: str = "rs-uid", **metadata: Any) -> Obj:
    ref = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-rs", "uid": owner, "controller": True}
    meta = {"name": name, "namespace": "team", "labels": {"app": "web"}, "ownerReferences": [ref], **metadata}
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    return {"metadata": meta, "status": {"conditions": [condition]}}


def setup(budgets: list[Obj], pods: list[Obj]) -> tuple[DisruptionController, Any]:
    context, client = make_context()
    controller = DisruptionController(context)
    scale = frozenset({"scale", "status"})
    controller._resources = [
        ApiResource("apps", "v1", "replicasets", "ReplicaSet", True, frozenset(), True, scale),
        ApiResource("apps", "v1", "deployments", "Deployment", True, frozenset(), True, scale),
        ApiResource("", "v1", "configmaps", "ConfigMap", True, frozenset(), True),
    ]
    controller.pods.replace(pods)
    controller.budgets.replace(budgets)
    return controller, client


def written(client: Any) -> Obj:
    [(_verb, path, body)] = [call for call in client.calls if call[0] == "update"]
    assert path == STATUS_PATH
    return body["status"]


def test_min_available_as_a_number_counts_ready_pods_against_it() -> None:
    async def scenario() -> None:
        controller, client = setup([budget({"minAvailable": 2})], [pod("a"), pod("b"), pod("c"), pod("d", ready=False)])
        await controller.sync("team/pdb")
        assert written(client) == {
            "currentHealthy": 3,
            "desiredHealthy": 2,
            "expectedPods": 4,
            "disruptionsAllowed": 1,
            "observedGeneration": 2,
            "conditions": [
                {
                    "type": "DisruptionAllowed",
                    "status": "True",
                    "observedGeneration": 2,
                    "lastTransitionTime": NOW,
                    "reason": "SufficientPods",
                    "message": "",
                }
            ],
        }

    asyncio.run(scenario())


def test_max_unavailable_is_taken_of_the_owning_deployments_scale() -> None:
    async def scenario() -> None:
        controller, client = setup([budget({"maxUnavailable": "25%"})], [pod("a"), pod("b")])
        deployment = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": "web",
            "uid": "dep-uid",
            "controller": True,
        }
        client.objects["/apis/apps/v1/namespaces/team/replicasets/web-rs"] = {
            "metadata": {"ownerReferences": [deployment]}
        }
        client.objects["/apis/apps/v1/namespaces/team/deployments/web/scale"] = {
            "metadata": {"uid": "dep-uid"},
            "spec": {"replicas": 4},
        }
        await controller.sync("team/pdb")
        status = written(client)
        assert (status["expectedPods"], status["desiredHealthy"], status["currentHealthy"]) == (4, 3, 2)
        assert status["disruptionsAllowed"] == 0
        assert status["conditions"][0]["reason"] == "InsufficientPods"

    asyncio.run(scenario())


def events(client: Any) -> list[tuple[str, str, str, str]]:
    return [
        (body["involvedObject"]["kind"], body["type"], body["reason"], body["message"])
        for _, _, body in client.events
        if body["source"] == {"component": "controllermanager"}
    ]


def test_a_pod_without_a_scalable_controller_fails_safe_with_an_event() -> None:
    async def scenario() -> None:
        controller, client = setup([budget({"maxUnavailable": 1}, {"disruptionsAllowed": 3})], [pod("a")])
        await controller.sync("team/pdb")
        status = written(client)
        assert status["disruptionsAllowed"] == 0
        condition = status["conditions"][0]
        assert (condition["status"], condition["reason"]) == ("False", "SyncFailed")
        assert condition["message"] == 'found no controllers for pod "a"'
        message = 'Failed to calculate the number of expected pods: found no controllers for pod "a"'
        assert events(client) == [("PodDisruptionBudget", "Warning", "CalculateExpectedPodCountFailed", message)]

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("api_version", "kind", "why"),
    [
        ("v1", "ConfigMap", "configmaps does not implement the scale subresource"),
        ("example.com/v1", "Widget", 'no matches for kind "Widget" in version "example.com/v1"'),
    ],
)
def test_a_pod_controlled_by_what_has_no_scale_fails_safe_saying_why(
    api_version: str, kind: str, why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        owned = pod("a")
        owned["metadata"]["ownerReferences"] = [
            {"apiVersion": api_version, "kind": kind, "name": "x", "uid": "x-uid", "controller": True}
        ]
        controller, client = setup([budget({"maxUnavailable": 1})], [owned])

        async def rediscovered(_client: Any, _group: str) -> list[ApiResource]:
            return controller._resources or []

        monkeypatch.setattr(disruption, "server_resources", rediscovered)
        await controller.sync("team/pdb")
        assert written(client)["conditions"][0]["message"] == why
        assert events(client)[0][3] == f"Failed to calculate the number of expected pods: {why}"

    asyncio.run(scenario())


def test_pods_without_a_controller_are_left_out_of_a_percentage_with_an_unmanaged_pods_event() -> None:
    async def scenario() -> None:
        selector = {
            "matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]}],
        }
        bare = pod("bare")
        bare["metadata"]["ownerReferences"] = []
        controller, client = setup([budget({"minAvailable": "50%", "selector": selector})], [pod("a"), bare])
        client.objects["/apis/apps/v1/namespaces/team/replicasets/web-rs"] = {"metadata": {}}
        client.objects["/apis/apps/v1/namespaces/team/replicasets/web-rs/scale"] = {
            "metadata": {"uid": "rs-uid"},
            "spec": {"replicas": 4},
        }
        await controller.sync("team/pdb")
        status = written(client)
        assert (status["expectedPods"], status["desiredHealthy"], status["currentHealthy"]) == (4, 2, 2)
        shown = (
            "&LabelSelector{MatchLabels:map[string]string{app: web,},"
            "MatchExpressions:[]LabelSelectorRequirement{"
            "LabelSelectorRequirement{Key:app,Operator:In,Values:[web api],},},}"
        )
        message = (
            f"Pods selected by this PodDisruptionBudget (selector: {shown}) were found to be unmanaged. As a result, "
            "the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "
            'To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.'
        )
        assert events(client) == [("PodDisruptionBudget", "Warning", "UnmanagedPods", message)]

    asyncio.run(scenario())


def test_a_budget_matching_no_pods_says_so_in_a_normal_event() -> None:
    async def scenario() -> None:
        controller, client = setup([budget({"minAvailable": 1})], [])
        await controller.sync("team/pdb")
        assert events(client) == [("PodDisruptionBudget", "Normal", "NoPods", "No matching pods found")]
        assert written(client)["disruptionsAllowed"] == 0

    asyncio.run(scenario())


def test_recently_evicted_pods_are_not_healthy_and_expired_records_are_dropped() -> None:
    async def scenario() -> None:
        recorded = {"a": rfc3339(990.0), "b": rfc3339(800.0)}
        controller, client = setup([budget({"minAvailable": 1}, {"disruptedPods": recorded})], [pod("a"), pod("b")])
        with pytest.raises(RequeueAfter) as requeue:
            await controller.sync("team/pdb")
        assert requeue.value.seconds == 110.0
        status = written(client)
        assert status["disruptedPods"] == {"a": rfc3339(990.0)}
        assert (status["currentHealthy"], status["disruptionsAllowed"]) == (1, 0)

    asyncio.run(scenario())


def test_an_up_to_date_status_is_not_rewritten() -> None:
    async def scenario() -> None:
        controller, client = setup([budget({"minAvailable": 1})], [pod("a")])
        await controller.sync("team/pdb")
        controller.budgets.replace([budget({"minAvailable": 1}, written(client))])
        await controller.sync("team/pdb")
        assert len(client.calls) == 1

    asyncio.run(scenario())


def test_a_pod_whose_eviction_expired_without_a_deletion_gets_a_not_deleted_event() -> None:
    async def scenario() -> None:
        recorded = {"b": rfc3339(800.0)}
        controller, client = setup([budget({"minAvailable": 1}, {"disruptedPods": recorded})], [pod("a"), pod("b")])
        await controller.sync("team/pdb")
        message = "Pod was expected by PDB team/team to be deleted but it wasn't"
        assert ("Pod", "Warning", "NotDeleted", message) in events(client)

    asyncio.run(scenario())


def marked(name: str, since: float, reason: str = "EvictionByEvictionAPI", **metadata: Any) -> Obj:
    target = {"type": "DisruptionTarget", "status": "True", "reason": reason, "lastTransitionTime": rfc3339(since)}
    found = pod(name, **metadata)
    found["status"]["conditions"].append(target)
    return found


def status_writes(client: Any) -> list[tuple[str, Obj]]:
    return [(path, body["status"]) for verb, path, body in client.calls if verb == "update" and "/pods/" in path]


def test_a_disruption_target_left_two_minutes_on_a_pod_not_deleting_is_set_back_to_false() -> None:
    async def scenario() -> None:
        controller, client = setup([], [marked("old", 800.0), marked("new", 990.0)])
        await controller.sync_stale_disruption("team/old")
        await controller.sync_stale_disruption("team/new")
        [(path, status)] = status_writes(client)
        assert path == "/api/v1/namespaces/team/pods/old/status"
        target = [c for c in status["conditions"] if c["type"] == "DisruptionTarget"]
        assert target == [{"type": "DisruptionTarget", "status": "False", "lastTransitionTime": NOW}]
        assert [c["type"] for c in status["conditions"]] == ["Ready", "DisruptionTarget"]

    asyncio.run(scenario())


def test_a_fresh_disruption_target_is_looked_at_again_when_it_would_be_stale() -> None:
    async def scenario() -> None:
        controller, client = setup([], [marked("new", 990.0)])
        key = await asyncio.wait_for(asyncio.ensure_future(_next_after(controller, 110.0)), 5)
        assert key == "team/new"
        await controller.sync_stale_disruption(key)
        assert [path for path, _ in status_writes(client)] == ["/api/v1/namespaces/team/pods/new/status"]

    asyncio.run(scenario())


async def _next_after(controller: DisruptionController, seconds: float) -> str:
    """The stale-condition queue is empty until `seconds` pass on the fake clock, then yields a key."""
    waiting = asyncio.ensure_future(controller.stale.get())
    for _ in range(10):
        await asyncio.sleep(0)
    assert not waiting.done()
    await controller.context.clock.advance(seconds)
    return await waiting


def test_conditions_set_by_the_kubelet_or_on_deleting_or_finished_pods_are_never_stale() -> None:
    async def scenario() -> None:
        finished = marked("done", 800.0)
        finished["status"]["phase"] = "Failed"
        pods = [
            marked("kubelet", 800.0, reason="TerminationByKubelet"),
            marked("deleting", 800.0, deletionTimestamp=rfc3339(900.0)),
            finished,
        ]
        controller, client = setup([], pods)
        for name in ("kubelet", "deleting", "done"):
            await controller.sync_stale_disruption(f"team/{name}")
        assert status_writes(client) == []
        assert len(controller.stale) == 0

    asyncio.run(scenario())
