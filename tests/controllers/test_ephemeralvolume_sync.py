"""The ephemeral-volume controller's sync over seeded caches."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from svc.client.aio import ApiError
from svc.controllers.ephemeralvolume import EphemeralVolumeController, NotForPod, VolumeError
from tests.controllers.fakes import RecordingClient, make_context

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


def failed_binding(client: RecordingClient) -> list[tuple[str, str, str, str]]:
    return [
        (body["involvedObject"]["name"], body["type"], body["reason"], body["message"])
        for _, _, body in client.events
        if body is not None
    ]


def test_a_claim_of_that_name_the_pod_does_not_own_fails_the_sync_with_an_event_on_the_pod() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EphemeralVolumeController(context)
        controller.claims.replace([{"metadata": {"name": "web-scratch", "namespace": "team"}}])
        controller.pods.replace([pod()])
        not_owner = "PVC team/web-scratch was not created for pod team/web (pod is not owner)"
        with pytest.raises(NotForPod, match=re.escape(not_owner)):
            await controller.sync("team/web")
        assert client.calls == []
        assert failed_binding(client) == [("web", "Warning", "FailedBinding", f"ephemeral volume scratch: {not_owner}")]
        assert client.events[0][2]["source"] == {"component": "ephemeral_volume"}

    asyncio.run(scenario())


def test_a_claim_the_api_server_refuses_fails_the_sync_with_an_event_on_the_pod() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EphemeralVolumeController(context)
        refusal = 'PersistentVolumeClaim "web-scratch" is invalid: spec.accessModes: Required value'
        client.failures["create"] = ApiError(422, {"kind": "Status", "reason": "Invalid", "message": refusal})
        controller.pods.replace([pod()])
        with pytest.raises(VolumeError):
            await controller.sync("team/web")
        message = f"ephemeral volume scratch: create PVC web-scratch: {refusal}"
        assert failed_binding(client) == [("web", "Warning", "FailedBinding", message)]

    asyncio.run(scenario())


def test_a_pod_whose_claim_name_is_taken_backs_off_while_other_pods_get_their_claims() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EphemeralVolumeController(context)
        controller.claims.replace([{"metadata": {"name": "web-scratch", "namespace": "team"}}])
        controller.pods.replace([pod(), pod(name="db", uid="u2")])
        attempts: list[str] = []
        sync = controller.sync

        async def counted(key: str) -> None:
            attempts.append(key)
            await sync(key)

        controller.sync = counted  # type: ignore[method-assign]
        task = asyncio.create_task(controller.run())
        try:
            await settle()
            assert [body["metadata"]["name"] for verb, _, body in client.calls if verb == "create"] == ["db-scratch"]
            assert attempts.count("team/web") == 1
            # The failed pod comes back after the rate limiter's delays (5 ms, then 10 ms), not at once.
            for delay, tries in ((0.005, 2), (0.01, 3)):
                await context.clock.advance(delay - 0.001)
                await settle()
                assert attempts.count("team/web") == tries - 1
                await context.clock.advance(0.001)
                await settle()
                assert attempts.count("team/web") == tries
            assert not task.done()
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(scenario())


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def test_a_new_pod_is_queued_and_its_status_updates_are_not() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = EphemeralVolumeController(context)
        controller.pods.replace([pod()])
        assert await controller.queue.get() == "team/web"
        controller.queue.done("team/web")
        controller.pods.replace([{**pod(), "status": {"phase": "Running"}}])
        assert len(controller.queue) == 0

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
