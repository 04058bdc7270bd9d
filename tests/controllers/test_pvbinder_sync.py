"""The persistentvolume-binder controller over seeded caches: what it writes, and the events."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.controllers.pvbinder import PersistentVolumeBinder
from svc.controllers.volume_matching import best_match
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
PROFILE = "svc"


def pv(name: str, size: str = "1Gi", *, modes=("ReadWriteOnce",), phase="Available", rv="5", **spec: Any) -> Obj:
    return {
        "metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": rv, "labels": spec.pop("labels", {})},
        "spec": {"capacity": {"storage": size}, "accessModes": list(modes), **spec},
        "status": {"phase": phase},
    }


def pvc(name: str, size: str = "1Gi", *, modes=("ReadWriteOnce",), annotations=None, rv="7", **spec: Any) -> Obj:
    return {
        "metadata": {
            "name": name,
            "namespace": "ns",
            "uid": f"uid-{name}",
            "resourceVersion": rv,
            "annotations": annotations or {},
        },
        "spec": {"accessModes": list(modes), "resources": {"requests": {"storage": size}}, **spec},
        "status": {"phase": "Pending"},
    }


def binder(volumes=(), claims=(), classes=(), pods=()) -> tuple[PersistentVolumeBinder, Any]:
    context, client = make_context(PROFILE)
    controller = PersistentVolumeBinder(context)
    controller.volumes.replace(list(volumes))
    controller.claims.replace(list(claims))
    controller.classes.replace(list(classes))
    controller.pods.replace(list(pods))
    return controller, client


def events(client: Any) -> list[tuple[str, str, str]]:
    return [(body["type"], body["reason"], body["message"]) for verb, _path, body in client.events if verb == "create"]


def writes(client: Any) -> list[tuple[str, str]]:
    return [(verb, path) for verb, path, _ in client.calls if verb == "update"]


def test_the_smallest_fitting_volume_of_the_fewest_access_modes_is_chosen() -> None:
    claim = pvc("c", "2Gi", storageClassName="")
    volumes = [
        pv("big", "10Gi"),
        pv("small", "1Gi"),
        pv("fits", "3Gi"),
        pv("rwx", "2Gi", modes=("ReadWriteOnce", "ReadWriteMany")),
        pv("bound", "2Gi", claimRef={"name": "other", "namespace": "ns"}),
    ]
    context, _ = make_context(PROFILE)
    assert best_match(claim, volumes, context.profile, delay_binding=False)["metadata"]["name"] == "fits"


def test_class_selector_and_phase_must_match_but_a_prebound_volume_wins() -> None:
    context, _ = make_context(PROFILE)
    claim = pvc("c", storageClassName="fast", selector={"matchLabels": {"tier": "gold"}})
    wrong_class = pv("slow", storageClassName="slow", labels={"tier": "gold"})
    wrong_labels = pv("plain", storageClassName="fast")
    released = pv("old", storageClassName="fast", labels={"tier": "gold"}, phase="Released")
    assert best_match(claim, [wrong_class, wrong_labels, released], context.profile, delay_binding=False) is None
    prebound = pv("mine", "5Gi", storageClassName="other", claimRef={"name": "c", "namespace": "ns"})
    assert best_match(claim, [wrong_labels, prebound], context.profile, delay_binding=True) is prebound


def test_binding_writes_the_volume_then_the_claim_with_their_statuses() -> None:
    async def scenario() -> None:
        controller, client = binder([pv("v1", "5Gi")], [pvc("c", storageClassName="")])
        await controller.sync_claim("ns/c")
        assert writes(client) == [
            ("update", "/api/v1/persistentvolumes/v1"),
            ("update", "/api/v1/persistentvolumes/v1/status"),
            ("update", "/api/v1/namespaces/ns/persistentvolumeclaims/c"),
            ("update", "/api/v1/namespaces/ns/persistentvolumeclaims/c/status"),
        ]
        volume, volume_status, claim, claim_status = (body for verb, _, body in client.calls if verb == "update")
        assert volume["spec"]["claimRef"] == {
            "kind": "PersistentVolumeClaim",
            "namespace": "ns",
            "name": "c",
            "uid": "uid-c",
            "apiVersion": "v1",
            "resourceVersion": "7",
        }
        assert volume["metadata"]["annotations"] == {"pv.svc.io/bound-by-controller": "yes"}
        assert volume_status["status"]["phase"] == "Bound"
        assert claim["spec"]["volumeName"] == "v1"
        assert claim["metadata"]["annotations"] == {
            "pv.svc.io/bound-by-controller": "yes",
            "pv.svc.io/bind-completed": "yes",
        }
        assert claim_status["status"] == {
            "phase": "Bound",
            "accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": "5Gi"},
        }

    asyncio.run(scenario())


def test_no_volume_and_no_class_is_a_failed_binding_event_and_pending() -> None:
    async def scenario() -> None:
        controller, client = binder([], [pvc("c", storageClassName="")])
        await controller.sync_claim("ns/c")
        message = "no persistent volumes available for this claim and no storage class is set"
        assert events(client) == [("Normal", "FailedBinding", message)]
        event = next(body for verb, _, body in client.events if verb == "create")
        assert event["source"] == {"component": "persistentvolume-controller"}
        assert event["involvedObject"]["kind"] == "PersistentVolumeClaim"

    asyncio.run(scenario())


def test_wait_for_first_consumer_does_not_bind_and_names_the_unscheduled_pod() -> None:
    async def scenario() -> None:
        wait = {"metadata": {"name": "local"}, "provisioner": "svc.io/no-provisioner"}
        wait["volumeBindingMode"] = "WaitForFirstConsumer"
        pod = {
            "metadata": {"name": "p", "namespace": "ns"},
            "spec": {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "c"}}]},
        }
        claim = pvc("c", storageClassName="local")
        controller, client = binder([pv("v1", storageClassName="local")], [claim], [wait])
        await controller.sync_claim("ns/c")
        assert events(client) == [
            ("Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding")
        ]
        assert writes(client) == []
        controller.pods.replace([pod])
        await controller.sync_claim("ns/c")
        assert events(client)[-1] == ("Normal", "WaitForPodScheduled", "waiting for pod p to be scheduled")

    asyncio.run(scenario())


def test_an_external_provisioner_is_asked_through_the_claim_annotations() -> None:
    async def scenario() -> None:
        csi = {"metadata": {"name": "csi"}, "provisioner": "csi.example.com"}
        controller, client = binder([], [pvc("c", storageClassName="csi"), pvc("d", storageClassName="gone")], [csi])
        await controller.sync_claim("ns/c")
        claim = next(body for verb, _, body in client.calls if verb == "update")
        assert claim["metadata"]["annotations"] == {
            "volume.beta.svc.io/storage-provisioner": "csi.example.com",
            "volume.svc.io/storage-provisioner": "csi.example.com",
        }
        assert events(client)[0][1] == "ExternalProvisioning"
        await controller.sync_claim("ns/d")
        assert events(client)[-1] == ("Warning", "ProvisioningFailed", 'storageclass.storage.svc "gone" not found')

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("volume", "problem"),
    [
        (pv("v1", "1Gi"), "requested PV is too small"),
        (pv("v1", "5Gi", storageClassName="slow"), "storageClassName does not match"),
    ],
)
def test_a_claim_naming_a_volume_that_cannot_serve_it_gets_a_mismatch_event_and_is_not_bound(
    volume: Obj, problem: str
) -> None:
    async def scenario() -> None:
        controller, client = binder([volume], [pvc("c", "5Gi", volumeName="v1", storageClassName="")])
        await controller.sync_claim("ns/c")
        assert events(client) == [("Warning", "VolumeMismatch", f'Cannot bind to requested volume "v1": {problem}')]
        assert writes(client) == []

    asyncio.run(scenario())


def test_a_bound_claim_whose_volume_is_gone_is_lost_once() -> None:
    async def scenario() -> None:
        done = {"pv.svc.io/bind-completed": "yes"}
        controller, client = binder([], [pvc("c", volumeName="v1", annotations=done)])
        await controller.sync_claim("ns/c")
        status = next(body for verb, _, body in client.calls if verb == "update")["status"]
        assert status == {"phase": "Lost"}
        assert events(client) == [
            ("Warning", "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
        ]

    asyncio.run(scenario())


def released_volume(policy: str, **extra: Any) -> Obj:
    ref = {"name": "c", "namespace": "ns", "uid": "uid-old"}
    return pv("v1", phase="Bound", claimRef=ref, persistentVolumeReclaimPolicy=policy, **extra)


def test_a_volume_whose_claim_is_deleted_is_released_and_retained() -> None:
    async def scenario() -> None:
        controller, client = binder([released_volume("Retain")])
        await controller.sync_volume("v1")
        assert [verb for verb, _, _ in client.calls] == ["get", "update"]
        assert client.calls[-1][1].endswith("/v1/status") and client.calls[-1][2]["status"] == {"phase": "Released"}

    asyncio.run(scenario())


def test_delete_without_a_deleter_fails_the_volume_and_an_external_one_is_waited_for() -> None:
    async def scenario() -> None:
        controller, client = binder([released_volume("Delete")])
        await controller.sync_volume("v1")
        statuses = [body["status"] for verb, _, body in client.calls if verb == "update"]
        message = 'error getting deleter volume plugin for volume "v1": no deletable volume plugin matched'
        assert statuses[-1] == {"phase": "Failed", "message": message}
        assert events(client) == [("Warning", "VolumeFailedDelete", message)]
        csi = released_volume("Delete", csi={"driver": "csi.example.com", "volumeHandle": "h"})
        controller, client = binder([csi])
        await controller.sync_volume("v1")
        assert events(client) == []

    asyncio.run(scenario())
