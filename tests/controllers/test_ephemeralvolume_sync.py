"""The ephemeral-volume controller's sync over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.controllers.ephemeralvolume import EphemeralVolumeController, NotForPod
from tests.controllers.fakes import make_context

TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}


def pod(**metadata: Any) -> dict[str, Any]:
    volumes = [
        {"name": "scratch", "ephemeral": {"volumeClaimTemplate": TEMPLATE}},
        {"name": "config", "configMap": {"name": "c"}},
    ]
    return {"metadata": {"name": "web", "namespace": "team", "uid": "u1", **metadata}, "spec": {"volumes": volumes}}


def test_an_ephemeral_volume_gets_a_claim_owned_by_the_pod_from_the_template() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EphemeralVolumeController(context)
        controller.pods.replace([pod()])
        await controller.sync("team/web")
        owner = {"apiVersion": "v1", "kind": "Pod", "name": "web", "uid": "u1", "controller": True}
        assert client.calls == [
            (
                "create",
                "/api/v1/namespaces/team/persistentvolumeclaims",
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolumeClaim",
                    "metadata": {
                        "name": "web-scratch",
                        "ownerReferences": [{**owner, "blockOwnerDeletion": True}],
                        "labels": {"app": "web"},
                    },
                    "spec": TEMPLATE["spec"],
                },
            )
        ]

    asyncio.run(scenario())


def test_an_owned_claim_or_a_pod_being_deleted_creates_nothing() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EphemeralVolumeController(context)
        owned = {
            "metadata": {
                "name": "web-scratch",
                "namespace": "team",
                "ownerReferences": [{"uid": "u1", "controller": True}],
            }
        }
        controller.claims.replace([owned])
        controller.pods.replace([pod()])
        await controller.sync("team/web")
        controller.pods.replace([pod(deletionTimestamp="2026-01-01T00:00:00Z")])
        await controller.sync("team/web")
        assert client.calls == []

    asyncio.run(scenario())


def test_a_claim_of_that_name_the_pod_does_not_own_fails_the_sync_with_upstreams_message() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EphemeralVolumeController(context)
        controller.claims.replace([{"metadata": {"name": "web-scratch", "namespace": "team"}}])
        controller.pods.replace([pod()])
        with pytest.raises(
            NotForPod, match=r"PVC team/web-scratch was not created for pod team/web \(pod is not owner\)"
        ):
            await controller.sync("team/web")
        assert client.calls == []

    asyncio.run(scenario())


def test_deleting_an_ephemeral_claim_queues_its_pod() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = EphemeralVolumeController(context)
        ref = {"kind": "Pod", "name": "web", "uid": "u1", "controller": True}
        controller.claims.replace(
            [{"metadata": {"name": "web-scratch", "namespace": "team", "ownerReferences": [ref]}}]
        )
        controller.claims.replace([])
        assert await controller.queue.get() == "team/web"

    asyncio.run(scenario())
