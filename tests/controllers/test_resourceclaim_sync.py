"""The resourceclaim controller over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.client.aio import ApiError
from svc.controllers.resourceclaim import ClaimError, ResourceClaimController, generate_name
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
CLAIMS = "/apis/resource.svc/v1/namespaces/ns/resourceclaims"


def pod(phase: str = "Pending", statuses: list[Obj] | None = None) -> Obj:
    claims = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}, {"name": "shared", "resourceClaimName": "s"}]
    status = {"phase": phase} | ({"resourceClaimStatuses": statuses} if statuses else {})
    return {
        "metadata": {"name": "trainer", "namespace": "ns", "uid": "pod-uid"},
        "spec": {"resourceClaims": claims},
        "status": status,
    }


TEMPLATE = {
    "metadata": {"name": "one-gpu", "namespace": "ns"},
    "spec": {"metadata": {"labels": {"team": "ml"}}, "spec": {"devices": {"requests": [{"name": "g"}]}}},
}


def controller(pods, claims=(), templates=(TEMPLATE,)) -> tuple[ResourceClaimController, Any]:  # type: ignore[no-untyped-def]
    context, client = make_context()
    rcc = ResourceClaimController(context)
    rcc.pods.replace(pods)
    rcc.claims.replace(list(claims))
    rcc.templates.replace(list(templates))
    return rcc, client


def test_a_templated_entry_gets_a_claim_owned_by_the_pod_and_recorded_in_its_status() -> None:
    async def scenario() -> None:
        rcc, client = controller([pod()])
        client.create = lambda path, body: _created(client, path, body)  # type: ignore[method-assign]
        await rcc.sync("pod:ns/trainer")
        (verb, path, body), (status_verb, status_path, status) = client.calls
        assert (verb, path) == ("create", CLAIMS)
        assert body["metadata"]["generateName"] == "trainer-gpu-"
        assert body["metadata"]["annotations"] == {"resource.svc.io/pod-claim-name": "gpu"}
        assert body["metadata"]["labels"] == {"team": "ml"}
        assert body["metadata"]["ownerReferences"][0]["uid"] == "pod-uid"
        assert body["spec"] == {"devices": {"requests": [{"name": "g"}]}}
        assert (status_verb, status_path) == ("patch:merge", "/api/v1/namespaces/ns/pods/trainer/status")
        assert status["status"] == {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "trainer-gpu-x1"}]}

    asyncio.run(scenario())


async def _created(client: Any, path: str, body: Obj) -> Obj:
    client.calls.append(("create", path, body))
    return {**body, "metadata": {**body["metadata"], "name": body["metadata"]["generateName"] + "x1"}}


def failed_creations(client: Any) -> list[tuple[str, str, str]]:
    return [
        (body["involvedObject"]["name"], body["type"], body["message"])
        for _, _, body in client.events
        if body["reason"] == "FailedResourceClaimCreation" and body["source"] == {"component": "resource_claim"}
    ]


def test_an_entry_whose_template_is_missing_fails_the_sync_with_an_event_on_the_pod() -> None:
    async def scenario() -> None:
        rcc, client = controller([pod()], templates=())
        with pytest.raises(ClaimError):
            await rcc.sync("pod:ns/trainer")
        missing = 'resource claim template "one-gpu": resourceclaimtemplate.resource.svc "one-gpu" not found'
        assert failed_creations(client) == [("trainer", "Warning", f"PodResourceClaim gpu: {missing}")]
        assert client.calls == []

    asyncio.run(scenario())


def test_a_claim_the_api_server_refuses_fails_the_sync_with_an_event_on_the_pod() -> None:
    async def scenario() -> None:
        rcc, client = controller([pod()])
        refusal = 'ResourceClaim.resource.svc "trainer-gpu-" is invalid: spec.devices.requests[0]: Required value'
        client.failures["create"] = ApiError(422, {"kind": "Status", "reason": "Invalid", "message": refusal})
        with pytest.raises(ClaimError):
            await rcc.sync("pod:ns/trainer")
        message = f"PodResourceClaim gpu: create ResourceClaim : {refusal}"
        assert failed_creations(client) == [("trainer", "Warning", message)]

    asyncio.run(scenario())


def test_a_recorded_entry_or_a_done_pod_creates_nothing() -> None:
    async def scenario() -> None:
        rcc, client = controller([pod(statuses=[{"name": "gpu", "resourceClaimName": "c"}])])
        await rcc.sync("pod:ns/trainer")
        rcc2, client2 = controller([pod(phase="Succeeded")])
        await rcc2.sync("pod:ns/trainer")
        assert client.calls == client2.calls == []

    asyncio.run(scenario())


def test_reservations_of_done_pods_are_dropped_and_the_generated_claim_deleted() -> None:
    async def scenario() -> None:
        claim = {
            "metadata": {
                "name": "trainer-gpu-x1",
                "namespace": "ns",
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "Pod", "name": "trainer", "uid": "pod-uid", "controller": True}
                ],
            },
            "status": {"reservedFor": [{"resource": "pods", "name": "trainer", "uid": "pod-uid"}]},
        }
        rcc, client = controller([pod(phase="Failed")], [claim])
        await rcc.sync("claim:ns/trainer-gpu-x1")
        assert [(verb, path) for verb, path, _ in client.calls] == [
            ("update", f"{CLAIMS}/trainer-gpu-x1/status"),
            ("delete", f"{CLAIMS}/trainer-gpu-x1"),
        ]
        assert client.calls[0][2]["status"]["reservedFor"] is None

    asyncio.run(scenario())


def test_long_names_are_shortened_in_proportion() -> None:
    name = generate_name("p" * 60, "c" * 20)
    assert len(name) <= 57 and name.startswith("p" * 40) and name.endswith("-" + "c" * 13)
