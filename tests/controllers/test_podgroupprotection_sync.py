"""The podgroup-protection controller's sync over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.podgroupprotection import PodGroupProtectionController
from tests.controllers.fakes import make_context

FINALIZER = "scheduling.svc/podgroup-protection"
PATH = "/apis/scheduling.svc/v1alpha2/namespaces/team/podgroups/gang"
Obj = dict[str, Any]


def podgroup(*, deleted: bool = True, finalizers: tuple[str, ...] = (FINALIZER, "other")) -> Obj:
    metadata: Obj = {"name": "gang", "namespace": "team", "finalizers": list(finalizers)}
    if deleted:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": metadata, "spec": {}}


def pod(name: str, phase: str = "Running", *, group: str = "gang", uid: str = "") -> Obj:
    metadata = {"name": name, "namespace": "team", "uid": uid or f"uid-{name}"}
    return {"metadata": metadata, "spec": {"schedulingGroup": {"podGroupName": group}}, "status": {"phase": phase}}


def test_a_deleted_podgroup_keeps_its_finalizer_while_an_active_pod_names_it() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGroupProtectionController(context)
        controller.podgroups.replace([podgroup()])
        controller.pods.replace([pod("a"), pod("b", "Succeeded"), pod("c", group="other")])
        await controller.sync("team/gang")
        assert client.calls == []
        controller.pods.replace([pod("a", "Failed"), pod("b", "Succeeded")])
        await controller.sync("team/gang")
        assert client.calls == [("update", PATH, podgroup(finalizers=("other",)))]

    asyncio.run(scenario())


def test_a_podgroup_not_being_deleted_is_left_alone() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGroupProtectionController(context)
        controller.podgroups.replace([podgroup(deleted=False)])
        await controller.sync("team/gang")
        assert client.calls == []

    asyncio.run(scenario())


def test_a_pod_finishing_or_replaced_requeues_its_podgroup_and_a_running_one_does_not() -> None:
    context, _ = make_context()
    controller = PodGroupProtectionController(context)
    controller.pods.replace([pod("a")])
    controller.pods.replace([pod("a", "Running")])
    assert len(controller.queue) == 0
    controller.pods.replace([pod("a", uid="new")])
    assert len(controller.queue) == 1
    controller.pods.replace([])
    controller.pods.replace([pod("a", "Succeeded")])
    assert len(controller.queue) == 1


def test_the_kubernetes_profile_spells_the_finalizer_upstreams_way() -> None:
    context, _ = make_context("kubernetes")
    assert PodGroupProtectionController(context).finalizer == "scheduling.k8s.io/podgroup-protection"
