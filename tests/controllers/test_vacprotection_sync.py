"""The volumeattributesclass-protection controller's sync over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.vacprotection import VACProtectionController, claim_classes
from tests.controllers.fakes import make_context

FINALIZER = "svc.io/vac-protection"
PATH = "/apis/storage.svc/v1/volumeattributesclasses/gold"
Obj = dict[str, Any]


def vac(*, deleted: bool, finalizers: list[str]) -> Obj:
    metadata: Obj = {"name": "gold", "finalizers": finalizers}
    if deleted:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": metadata, "driverName": "csi.example.com", "parameters": {"iops": "100"}}


def claim(**status: Any) -> Obj:
    return {"metadata": {"name": "data", "namespace": "team"}, "spec": {}, "status": status}


def test_a_class_without_the_finalizer_gets_it() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = VACProtectionController(context)
        controller.classes.replace([vac(deleted=False, finalizers=[])])
        await controller.sync("gold")
        assert client.calls == [("update", PATH, vac(deleted=False, finalizers=[FINALIZER]))]

    asyncio.run(scenario())


def test_a_deleted_class_keeps_its_finalizer_while_a_volume_names_it() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = VACProtectionController(context)
        controller.classes.replace([vac(deleted=True, finalizers=[FINALIZER, "other"])])
        controller.volumes.replace([{"metadata": {"name": "pv1"}, "spec": {"volumeAttributesClassName": "gold"}}])
        await controller.sync("gold")
        assert client.calls == []
        controller.volumes.replace([])
        await controller.sync("gold")
        assert client.calls == [("update", PATH, vac(deleted=True, finalizers=["other"]))]

    asyncio.run(scenario())


def test_a_claim_moving_to_the_class_keeps_it() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = VACProtectionController(context)
        controller.classes.replace([vac(deleted=True, finalizers=[FINALIZER])])
        controller.claims.replace([claim(modifyVolumeStatus={"targetVolumeAttributesClassName": "gold"})])
        await controller.sync("gold")
        assert client.calls == []

    asyncio.run(scenario())


def test_a_claim_names_a_class_by_spec_current_status_or_modify_target() -> None:
    both = claim(currentVolumeAttributesClassName="silver", modifyVolumeStatus={"targetVolumeAttributesClassName": ""})
    both["spec"]["volumeAttributesClassName"] = "gold"
    assert claim_classes(both) == {"gold", "silver"}


def test_a_claim_that_stops_naming_a_class_requeues_it() -> None:
    context, _ = make_context()
    controller = VACProtectionController(context)
    controller.claims.replace([claim(currentVolumeAttributesClassName="gold")])
    controller.claims.replace([claim(currentVolumeAttributesClassName="silver")])
    assert len(controller.queue) == 1


def test_the_kubernetes_profile_spells_the_finalizer_upstreams_way() -> None:
    context, _ = make_context("kubernetes")
    assert VACProtectionController(context).finalizer == "kubernetes.io/vac-protection"
