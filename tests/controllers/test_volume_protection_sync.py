"""The PV and PVC protection controllers' syncs over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.pvcprotection import PVCProtectionController
from svc.controllers.pvprotection import PVProtectionController
from tests.controllers.fakes import make_context

PV_FINALIZER = "svc.io/pv-protection"
PVC_FINALIZER = "svc.io/pvc-protection"
CLAIM_PATH = "/api/v1/namespaces/team/persistentvolumeclaims/data"
PODS_PATH = "/api/v1/namespaces/team/pods"

Obj = dict[str, Any]


def volume(phase: str, *, deleted: bool, finalizers: list[str]) -> Obj:
    metadata: Obj = {"name": "pv1", "finalizers": finalizers}
    if deleted:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": metadata, "status": {"phase": phase}}


def claim(*, deleted: bool, finalizers: list[str], name: str = "data", owner_uid: str = "") -> Obj:
    metadata: Obj = {"name": name, "namespace": "team", "finalizers": finalizers}
    if deleted:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    if owner_uid:
        metadata["ownerReferences"] = [{"kind": "Pod", "name": "p", "uid": owner_uid, "controller": True}]
    return {"metadata": metadata}


def pod(volumes: list[Obj], *, node: str = "n1", phase: str = "Running", **metadata: Any) -> Obj:
    meta = {"name": "p", "namespace": "team", "uid": "u1", **metadata}
    return {"metadata": meta, "spec": {"nodeName": node, "volumes": volumes}, "status": {"phase": phase}}


USES_DATA = [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]


def test_a_deleted_volume_keeps_its_finalizer_while_bound_and_loses_it_once_released() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PVProtectionController(context)
        controller.volumes.replace([volume("Bound", deleted=True, finalizers=[PV_FINALIZER, "other"])])
        await controller.sync("pv1")
        assert client.calls == []
        controller.volumes.replace([volume("Released", deleted=True, finalizers=[PV_FINALIZER, "other"])])
        await controller.sync("pv1")
        assert client.calls == [
            ("update", "/api/v1/persistentvolumes/pv1", volume("Released", deleted=True, finalizers=["other"]))
        ]

    asyncio.run(scenario())


def test_a_volume_without_the_finalizer_gets_it() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PVProtectionController(context)
        controller.volumes.replace([volume("Available", deleted=False, finalizers=[])])
        await controller.sync("pv1")
        assert client.calls[0][2]["metadata"]["finalizers"] == [PV_FINALIZER]

    asyncio.run(scenario())


def test_the_kubernetes_profile_spells_the_finalizer_upstreams_way() -> None:
    context, _ = make_context("kubernetes")
    assert PVCProtectionController(context).finalizer == "kubernetes.io/pvc-protection"
    assert PVProtectionController(context).finalizer == "kubernetes.io/pv-protection"


def test_a_deleted_claim_used_by_a_scheduled_pod_keeps_its_finalizer() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PVCProtectionController(context)
        controller.claims.replace([claim(deleted=True, finalizers=[PVC_FINALIZER])])
        controller.pods.replace([pod(USES_DATA)])
        await controller.sync("team/data")
        assert client.calls == []

    asyncio.run(scenario())


def test_an_unscheduled_pod_does_not_hold_a_claim_and_the_live_list_is_asked_before_release() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PVCProtectionController(context)
        controller.claims.replace([claim(deleted=True, finalizers=[PVC_FINALIZER])])
        controller.pods.replace([pod(USES_DATA, node="")])
        client.objects[PODS_PATH] = {"items": []}
        await controller.sync("team/data")
        assert client.calls == [
            ("get", PODS_PATH, None),
            ("update", CLAIM_PATH, claim(deleted=True, finalizers=[])),
        ]

    asyncio.run(scenario())


def test_a_pod_only_the_live_list_knows_keeps_the_claim() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PVCProtectionController(context)
        controller.claims.replace([claim(deleted=True, finalizers=[PVC_FINALIZER])])
        client.objects[PODS_PATH] = {"items": [pod(USES_DATA)]}
        await controller.sync("team/data")
        assert [verb for verb, _path, _body in client.calls] == ["get"]

    asyncio.run(scenario())


def test_an_ephemeral_claim_is_released_once_its_pod_is_shut_down() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PVCProtectionController(context)
        ephemeral = [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]
        controller.claims.replace([claim(deleted=True, finalizers=[PVC_FINALIZER], name="p-scratch", owner_uid="u1")])
        controller.pods.replace([pod(ephemeral)])
        await controller.sync("team/p-scratch")
        assert client.calls == []
        shut_down = pod(ephemeral, deletionTimestamp="2026-01-01T00:00:00Z", deletionGracePeriodSeconds=0)
        controller.pods.replace([shut_down])
        client.objects[PODS_PATH] = {"items": [shut_down]}
        await controller.sync("team/p-scratch")
        assert client.calls[-1][0] == "update"

    asyncio.run(scenario())


def test_a_claim_without_the_finalizer_gets_it_and_a_finished_pod_queues_its_claims() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PVCProtectionController(context)
        controller.claims.replace([claim(deleted=False, finalizers=[])])
        assert await controller.queue.get() == "team/data"
        controller.queue.done("team/data")
        await controller.sync("team/data")
        assert client.calls == [("update", CLAIM_PATH, claim(deleted=False, finalizers=[PVC_FINALIZER]))]
        controller.pods.replace([pod(USES_DATA)])
        assert len(controller.queue) == 0
        controller.pods.replace([pod(USES_DATA, phase="Succeeded")])
        assert await controller.queue.get() == "team/data"

    asyncio.run(scenario())
