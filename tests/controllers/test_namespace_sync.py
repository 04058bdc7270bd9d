"""The namespace controller without a server: its conditions, the 5 s delay, and its sync over a
recording client with seeded discovery and lists, on the fake clock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.client.workers import RequeueAfter
from svc.controllers.deployment_math import rfc3339
from svc.controllers.namespace import NamespaceController
from svc.controllers.namespace_content import BACKGROUND, Remaining, conditions, merge_conditions
from tests.controllers.fakes import RecordingClient, make_context, seed_core_discovery, served

Obj = dict[str, Any]
NAMESPACE = "/api/v1/namespaces/doomed"
PODS, CONFIGMAPS = f"{NAMESPACE}/pods", f"{NAMESPACE}/configmaps"


def test_conditions_when_everything_is_gone_are_the_five_false_ones() -> None:
    found = conditions("", Remaining())
    assert [(c["type"], c["status"], c["reason"]) for c in found] == [
        ("NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered"),
        ("NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions"),
        ("NamespaceDeletionContentFailure", "False", "ContentDeleted"),
        ("NamespaceContentRemaining", "False", "ContentRemoved"),
        ("NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers"),
    ]


def test_remaining_content_is_counted_per_resource_and_finalizer_in_sorted_order() -> None:
    remaining = Remaining()
    remaining.by_resource.update({"pods": 2, "configmaps": 1})
    remaining.by_finalizer.update({"b.io/x": 1, "a.io/y": 2})
    found = {c["type"]: c for c in conditions("", remaining)}
    assert found["NamespaceContentRemaining"]["message"] == (
        "Some resources are remaining: configmaps has 1 resource instances, pods has 2 resource instances"
    )
    assert found["NamespaceFinalizersRemaining"]["message"] == (
        "Some content in the namespace has finalizers remaining: a.io/y in 2 resource instances, "
        "b.io/x in 1 resource instances"
    )


def test_an_unchanged_condition_keeps_its_transition_time() -> None:
    first = merge_conditions([], conditions("", Remaining()), "2026-01-01T00:00:00Z")
    again = merge_conditions(first, conditions("", Remaining()), "2026-01-01T00:05:00Z")
    assert again == first
    failed = merge_conditions(first, conditions("boom", Remaining()), "2026-01-01T00:05:00Z")
    assert failed[0]["lastTransitionTime"] == "2026-01-01T00:05:00Z"
    assert failed[1]["lastTransitionTime"] == "2026-01-01T00:00:00Z"


def test_a_deleted_namespace_is_queued_five_seconds_later_and_a_live_one_never() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = NamespaceController(context)
        live = {"metadata": {"name": "live"}}
        doomed = {"metadata": {"name": "doomed", "deletionTimestamp": "2026-01-01T00:00:00Z"}}
        controller.namespaces.replace([live, doomed])
        await context.clock.advance(4.9)  # type: ignore[attr-defined]
        assert len(controller.queue) == 0
        await context.clock.advance(0.1)  # type: ignore[attr-defined]
        assert await controller.queue.get() == "doomed"
        assert len(controller.queue) == 0

    asyncio.run(scenario())


def terminating(
    *, pods: tuple[Obj, ...] = (), configmaps: tuple[Obj, ...] = ()
) -> tuple[NamespaceController, RecordingClient]:
    """A controller whose server has a namespace `doomed` deleted 10 s ago (on the fake clock) and
    still listing `pods` and `configmaps` after the deletes."""
    context, client = make_context()
    seed_core_discovery(client, served("pods", "Pod"), served("configmaps", "ConfigMap"))
    deleted = rfc3339(context.clock.wall() - 10)
    client.objects[NAMESPACE] = {
        "metadata": {"name": "doomed", "deletionTimestamp": deleted},
        "spec": {"finalizers": ["svc"]},
        "status": {"phase": "Active"},
    }
    client.objects |= {PODS: {"items": list(pods)}, CONFIGMAPS: {"items": list(configmaps)}}
    return NamespaceController(context), client


def test_a_namespace_whose_content_is_gone_is_marked_terminating_and_finalized() -> None:
    async def scenario() -> None:
        controller, client = terminating()
        await controller.sync("doomed")
        writes = [(verb, path, body) for verb, path, body in client.calls if verb != "get"]
        assert [(verb, path) for verb, path, _ in writes] == [
            ("update", f"{NAMESPACE}/status"),
            ("delete", PODS),
            ("delete", CONFIGMAPS),
            ("update", f"{NAMESPACE}/status"),
            ("update", f"{NAMESPACE}/finalize"),
        ]
        assert writes[0][2]["status"]["phase"] == "Terminating"
        assert writes[1][2] == writes[2][2] == BACKGROUND
        written = {c["type"]: c["status"] for c in writes[3][2]["status"]["conditions"]}
        assert written["NamespaceContentRemaining"] == "False"
        assert writes[4][2]["spec"]["finalizers"] == []

    asyncio.run(scenario())


def test_content_held_by_a_finalizer_is_reported_and_looked_at_again_after_eight_seconds() -> None:
    async def scenario() -> None:
        held = {"metadata": {"name": "kept", "finalizers": ["example.com/hold"]}}
        controller, client = terminating(configmaps=(held,))
        with pytest.raises(RequeueAfter) as later:
            await controller.sync("doomed")
        assert later.value.seconds == 15 // 2 + 1
        assert not any(path.endswith("/finalize") for _, path, _ in client.calls)
        found = {c["type"]: c for c in client.calls[-1][2]["status"]["conditions"]}
        assert found["NamespaceFinalizersRemaining"]["message"] == (
            "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
        )
        assert found["NamespaceFinalizersRemaining"]["lastTransitionTime"] == rfc3339(controller.context.clock.wall())

    asyncio.run(scenario())


def test_terminating_pods_are_waited_for_until_their_grace_period_counted_from_the_deletion_ends() -> None:
    async def scenario() -> None:
        pod = {"metadata": {"name": "p", "deletionGracePeriodSeconds": 30}}
        controller, _client = terminating(pods=(pod,))
        with pytest.raises(RequeueAfter) as later:
            await controller.sync("doomed")
        # 30 s of grace, 10 of them already gone since the namespace was deleted: 20 // 2 + 1
        assert later.value.seconds == 11

    asyncio.run(scenario())


def test_content_that_stays_without_a_finalizer_fails_the_sync_with_upstreams_message() -> None:
    async def scenario() -> None:
        controller, client = terminating(configmaps=({"metadata": {"name": "stuck"}},))
        with pytest.raises(RuntimeError, match="unexpected items still remain in namespace: doomed"):
            await controller.sync("doomed")
        found = {c["type"]: c for c in client.calls[-1][2]["status"]["conditions"]}
        assert found["NamespaceDeletionContentFailure"]["status"] == "True"
        assert found["NamespaceDeletionContentFailure"]["reason"] == "ContentDeletionFailed"

    asyncio.run(scenario())
