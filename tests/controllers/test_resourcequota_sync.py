"""The resourcequota controller's sync over seeded caches, on the fake clock."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.resourcequota import ResourceQuotaController
from tests.controllers.fakes import make_context, seed_core_discovery

Obj = dict[str, Any]
STATUS_PATH = "/api/v1/namespaces/team/resourcequotas/q/status"


def quota(hard: dict[str, str], status: Obj | None = None) -> Obj:
    return {"metadata": {"name": "q", "namespace": "team"}, "spec": {"hard": hard}, "status": status or {}}


def pod(name: str, cpu: str = "100m", memory: str = "64Mi", **extra: Any) -> Obj:
    resources = {"requests": {"cpu": cpu, "memory": memory}, "limits": {"cpu": "1", "memory": "128Mi"}}
    metadata = {"name": name, "namespace": "team", **extra.pop("metadata", {})}
    return {"metadata": metadata, "spec": {"containers": [{"name": "c", "resources": resources}]}, **extra}


async def used_of(controller: ResourceQuotaController, name: str, **spec: Any) -> str | None:
    """What the controller finds the namespace `team` uses of `name`, for a quota limiting only it."""
    hard = {name: "1000"}
    return (await controller.used(quota(hard) | {"spec": {"hard": hard, **spec}}, "team", hard, {})).get(name)


def written_status(client: Any) -> Obj:
    [(verb, path, body)] = client.calls
    assert (verb, path) == ("update", STATUS_PATH)
    return body["status"]


def test_object_counts_and_compute_of_running_pods_are_written_to_status() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = ResourceQuotaController(context)
        hard = {
            "pods": "10",
            "count/configmaps": "5",
            "secrets": "5",
            "requests.cpu": "2",
            "memory": "1Gi",
            "limits.memory": "1Gi",
        }
        controller.quotas.replace([quota(hard)])
        controller.counted["pods"].replace(
            [pod("a", "250m", "100Mi"), pod("b", "500m"), pod("done", "4", status={"phase": "Succeeded"})]
        )
        controller.counted["configmaps"].replace([{"metadata": {"name": "c", "namespace": "team"}}])
        controller.counted["secrets"].replace([{"metadata": {"name": "s", "namespace": "elsewhere"}}])
        await controller.sync("team/q")
        assert written_status(client) == {
            "hard": hard,
            "used": {
                "pods": "2",
                "count/configmaps": "1",
                "secrets": "0",
                "requests.cpu": "750m",
                "memory": "164Mi",
                "limits.memory": "256Mi",
            },
        }

    asyncio.run(scenario())


def test_extended_resources_are_summed_and_claims_count_storage() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = ResourceQuotaController(context)
        gpu = pod("a")
        gpu["spec"]["containers"][0]["resources"]["requests"]["example.com/gpu"] = "2"
        controller.counted["pods"].replace([gpu, pod("b")])
        claim = {
            "metadata": {"name": "c", "namespace": "team"},
            "spec": {"resources": {"requests": {"storage": "1Gi"}}},
        }
        controller.counted["persistentvolumeclaims"].replace([claim])
        assert await used_of(controller, "requests.example.com/gpu") == "2"
        assert await used_of(controller, "requests.storage") == "1Gi"
        assert await used_of(controller, "cpu") == "200m"

    asyncio.run(scenario())


def test_a_pod_past_its_deletion_grace_period_stops_counting_as_the_clock_moves() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = ResourceQuotaController(context)
        controller.quotas.replace([quota({"pods": "10"})])
        deleted_at = "1970-01-01T00:16:40Z"  # the fake clock's start, 1000 s after the epoch
        controller.counted["pods"].replace(
            [pod("a", metadata={"deletionTimestamp": deleted_at, "deletionGracePeriodSeconds": 30})]
        )
        assert await used_of(controller, "pods") == "1"
        await context.clock.advance(31)  # type: ignore[attr-defined]
        assert await used_of(controller, "pods") == "0"

    asyncio.run(scenario())


def test_an_unchanged_status_is_not_written() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = ResourceQuotaController(context)
        controller.quotas.replace([quota({"services": "3"}, {"hard": {"services": "3"}, "used": {"services": "0"}})])
        await controller.sync("team/q")
        await controller.sync("team/gone")
        assert client.calls == []

    asyncio.run(scenario())


def test_a_counted_object_queues_the_quotas_of_its_namespace() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = ResourceQuotaController(context)
        controller.quotas.replace([quota({"pods": "1"})])
        assert await controller.queue.get() == "team/q"
        controller.queue.done("team/q")
        controller.counted["services"].replace([{"metadata": {"name": "web", "namespace": "team"}}])
        assert await controller.queue.get() == "team/q"

    asyncio.run(scenario())


def test_every_quota_is_recalculated_each_sync_period() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = ResourceQuotaController(context, sync_period=300)
        controller.quotas.replace([quota({"pods": "1"})])
        assert await controller.queue.get() == "team/q"
        controller.queue.done("team/q")
        controller.queue.forget("team/q")
        resync = asyncio.create_task(controller._resync())
        await asyncio.sleep(0)
        await context.clock.advance(300)  # type: ignore[attr-defined]
        assert await asyncio.wait_for(controller.queue.get(), 5) == "team/q"
        resync.cancel()

    asyncio.run(scenario())


def test_a_status_change_in_the_cache_queues_the_quota_again() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = ResourceQuotaController(context)
        controller.quotas.replace([quota({"pods": "1"}, {"hard": {"pods": "1"}, "used": {"pods": "0"}})])
        assert await controller.queue.get() == "team/q"
        controller.queue.done("team/q")
        controller.quotas.replace([quota({"pods": "1"}, {"hard": {"pods": "1"}, "used": {"pods": "1"}})])
        assert await asyncio.wait_for(controller.queue.get(), 5) == "team/q"

    asyncio.run(scenario())


def test_a_scoped_quota_counts_only_the_pods_its_scopes_select() -> None:
    async def scenario() -> None:
        context, _client = make_context()
        controller = ResourceQuotaController(context)
        best_effort = {"metadata": {"name": "b", "namespace": "team"}, "spec": {"containers": [{"name": "c"}]}}
        controller.counted["pods"].replace([pod("a"), best_effort])
        assert await used_of(controller, "pods", scopes=["BestEffort"]) == "1"
        assert await used_of(controller, "pods", scopes=["NotBestEffort"]) == "1"
        assert await used_of(controller, "requests.cpu", scopes=["NotBestEffort"]) == "100m"
        assert await used_of(controller, "pods") == "2"

    asyncio.run(scenario())


def test_a_priority_class_scope_selector_counts_the_pods_of_those_classes() -> None:
    async def scenario() -> None:
        context, _client = make_context()
        controller = ResourceQuotaController(context)
        high = pod("h")
        high["spec"]["priorityClassName"] = "high"
        controller.counted["pods"].replace([pod("a"), high])
        selector = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}
        assert await used_of(controller, "pods", scopeSelector=selector) == "1"

    asyncio.run(scenario())


def test_storage_is_also_counted_per_storage_class() -> None:
    async def scenario() -> None:
        context, _client = make_context()
        controller = ResourceQuotaController(context)

        def claim(name: str, size: str, class_name: str) -> Obj:
            spec = {"resources": {"requests": {"storage": size}}, "storageClassName": class_name}
            return {"metadata": {"name": name, "namespace": "team"}, "spec": spec}

        controller.counted["persistentvolumeclaims"].replace([claim("a", "1Gi", "gold"), claim("b", "2Gi", "silver")])
        assert await used_of(controller, "gold.storageclass.storage.k8s.io/requests.storage") == "1Gi"
        assert await used_of(controller, "silver.storageclass.storage.k8s.io/persistentvolumeclaims") == "1"
        assert await used_of(controller, "requests.storage") == "3Gi"

    asyncio.run(scenario())


def test_a_resource_no_evaluator_tracks_is_left_out_of_used_or_keeps_its_earlier_value() -> None:
    async def scenario() -> None:
        context, client = make_context()
        seed_core_discovery(client)
        controller = ResourceQuotaController(context)
        hard = {"pods": "5", "count/widgets.example.com": "3", "limits.example.com/gpu": "2"}
        assert await controller.used(quota(hard), "team", hard, {}) == {"pods": "0"}
        before = {"limits.example.com/gpu": "1"}
        assert await controller.used(quota(hard), "team", hard, before) == {"pods": "0", **before}

    asyncio.run(scenario())
