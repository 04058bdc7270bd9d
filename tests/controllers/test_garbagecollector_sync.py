"""The garbage collector's decisions over seeded monitors, live reads and a fake clock."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.client.aio import resource_path
from svc.client.workers import process_next
from svc.controllers.garbagecollector import NAME, GarbageCollector
from tests.controllers.fakes import RecordingClient, make_context, seed_core_discovery, served

Obj = dict[str, Any]


def configmap(name: str, *owners: str, namespace: str = "ns", finalizers: tuple[str, ...] = (), **meta: Any) -> Obj:
    """A ConfigMap whose owners are ConfigMaps named `owners` (uid `uid-<name>`)."""
    metadata: Obj = {"name": name, "namespace": namespace, "uid": f"uid-{name}", "resourceVersion": "5", **meta}
    if owners:
        metadata["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": owner, "uid": f"uid-{owner}"} for owner in owners
        ]
    if finalizers:
        metadata["finalizers"] = list(finalizers)
    return {"metadata": metadata}


def _path(obj: Obj, resource: str = "configmaps") -> str:
    metadata = obj["metadata"]
    return resource_path("", "v1", resource, namespace=metadata.get("namespace", ""), name=metadata["name"])


async def collector(*configmaps: Obj, volumes: tuple[Obj, ...] = ()) -> tuple[GarbageCollector, RecordingClient]:
    """A collector that has discovered the core group and whose monitors list `configmaps` and
    `volumes`; each object is also what a live read returns."""
    context, client = make_context()
    seed_core_discovery(
        client, served("configmaps", "ConfigMap"), served("persistentvolumes", "PersistentVolume", namespaced=False)
    )
    gc = GarbageCollector(context)
    for resource in await gc._discover():
        gc._monitor(resource)
    client.objects |= {_path(obj): obj for obj in configmaps}
    client.objects |= {_path(obj, "persistentvolumes"): obj for obj in volumes}
    gc.monitors[("", "v1", "configmaps")].replace(list(configmaps))
    gc.monitors[("", "v1", "persistentvolumes")].replace(list(volumes))
    return gc, client


async def drain(gc: GarbageCollector) -> None:
    """Run the workers' step until both queues are empty (failed keys wait on the fake clock)."""
    while len(gc.attempt_to_delete) or len(gc.attempt_to_orphan):
        if len(gc.attempt_to_delete):
            await process_next(gc.attempt_to_delete, gc.attempt_to_delete_item, name=NAME)
        if len(gc.attempt_to_orphan):
            await process_next(gc.attempt_to_orphan, gc.attempt_to_orphan_item, name=NAME)


def writes(client: RecordingClient) -> list[tuple[str, str, Any]]:
    return [(verb, path, body) for verb, path, body in client.calls if verb != "get"]


def test_a_dependent_of_a_missing_owner_is_deleted_in_the_background_with_preconditions() -> None:
    async def scenario() -> None:
        gc, client = await collector(configmap("stray", "ghost"))
        await drain(gc)
        assert writes(client) == [
            (
                "delete",
                "/api/v1/namespaces/ns/configmaps/stray",
                {
                    "kind": "DeleteOptions",
                    "apiVersion": "v1",
                    "propagationPolicy": "Background",
                    "preconditions": {"uid": "uid-stray", "resourceVersion": "5"},
                },
            )
        ]

    asyncio.run(scenario())


def test_a_live_owner_keeps_its_dependent_and_a_replaced_one_is_dropped_from_its_references() -> None:
    async def scenario() -> None:
        replaced = configmap("old", uid="uid-new")
        kept = configmap("kept", "owner", "old")
        gc, client = await collector(configmap("owner"), replaced, kept)
        await drain(gc)
        [to_owner, _to_old] = kept["metadata"]["ownerReferences"]
        assert writes(client) == [
            (
                "patch:merge",
                "/api/v1/namespaces/ns/configmaps/kept",
                {"metadata": {"resourceVersion": "5", "ownerReferences": [to_owner]}},
            )
        ]

    asyncio.run(scenario())


def test_an_orphaning_owner_frees_its_dependents_then_loses_its_finalizer() -> None:
    async def scenario() -> None:
        owner = configmap("owner", finalizers=("orphan",), deletionTimestamp="2026-01-01T00:00:00Z")
        gc, client = await collector(owner, configmap("dependent", "owner"))
        await drain(gc)
        assert writes(client) == [
            (
                "patch:merge",
                "/api/v1/namespaces/ns/configmaps/dependent",
                {"metadata": {"resourceVersion": "5", "ownerReferences": None}},
            ),
            (
                "patch:merge",
                "/api/v1/namespaces/ns/configmaps/owner",
                {"metadata": {"resourceVersion": "5", "finalizers": None}},
            ),
        ]

    asyncio.run(scenario())


def test_a_foreground_owner_keeps_its_finalizer_until_no_blocking_dependent_is_left() -> None:
    async def scenario() -> None:
        owner = configmap("owner", finalizers=("foregroundDeletion",), deletionTimestamp="2026-01-01T00:00:00Z")
        blocking = configmap("blocking", "owner")
        blocking["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] = True
        gc, client = await collector(owner, blocking)
        await drain(gc)
        background = {
            "kind": "DeleteOptions",
            "apiVersion": "v1",
            "propagationPolicy": "Background",
            "preconditions": {"uid": "uid-blocking", "resourceVersion": "5"},
        }
        assert writes(client) == [("delete", "/api/v1/namespaces/ns/configmaps/blocking", background)]
        client.calls.clear()
        gc.monitors[("", "v1", "configmaps")].replace([owner])
        await drain(gc)
        assert writes(client) == [
            (
                "patch:merge",
                "/api/v1/namespaces/ns/configmaps/owner",
                {"metadata": {"resourceVersion": "5", "finalizers": None}},
            )
        ]

    asyncio.run(scenario())


def test_an_owner_of_an_unknown_kind_is_retried_after_a_backoff_on_the_clock_and_never_collected() -> None:
    async def scenario() -> None:
        stray = configmap("stray", "ghost")
        stray["metadata"]["ownerReferences"][0]["kind"] = "NoSuchKind"
        gc, client = await collector(stray)
        await process_next(gc.attempt_to_delete, gc.attempt_to_delete_item, name=NAME)
        assert gc.attempt_to_delete.retries("uid-stray") == 1
        assert len(gc.attempt_to_delete) == 0
        await gc.context.clock.advance(0.005)  # type: ignore[attr-defined]
        assert len(gc.attempt_to_delete) == 1
        assert writes(client) == []

    asyncio.run(scenario())


def test_an_owner_seen_in_another_namespace_is_reported_and_the_dependent_collected() -> None:
    async def scenario() -> None:
        gc, client = await collector(configmap("owner", namespace="elsewhere"), configmap("stray", "owner"))
        await drain(gc)
        [(_verb, path, event)] = client.events
        assert path == "/api/v1/namespaces/ns/events"
        assert (event["type"], event["reason"], event["source"]) == (
            "Warning",
            "OwnerRefInvalidNamespace",
            {"component": NAME},
        )
        assert event["message"] == (
            'ownerRef [v1/ConfigMap, namespace: ns, name: owner, uid: uid-owner] does not exist in namespace "ns"'
        )
        assert event["involvedObject"] == {
            "kind": "ConfigMap",
            "namespace": "ns",
            "name": "stray",
            "uid": "uid-stray",
            "apiVersion": "v1",
            "resourceVersion": "5",
        }
        assert [(verb, path) for verb, path, _ in writes(client)] == [
            ("delete", "/api/v1/namespaces/ns/configmaps/stray")
        ]

    asyncio.run(scenario())


def test_a_cluster_scoped_object_naming_a_namespaced_owner_is_reported_and_never_collected_nor_retried() -> None:
    async def scenario() -> None:
        volume = configmap("pv", "owner", namespace="")
        del volume["metadata"]["namespace"]
        gc, client = await collector(configmap("owner"), volumes=(volume,))
        await drain(gc)
        [(_verb, path, event)] = client.events
        assert (path, event["reason"]) == ("/api/v1/namespaces/default/events", "OwnerRefInvalidNamespace")
        assert event["involvedObject"]["kind"] == "PersistentVolume"
        assert writes(client) == []
        assert gc.attempt_to_delete.retries("uid-pv") == 0

    asyncio.run(scenario())
