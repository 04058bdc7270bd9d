"""The namespace controller's pieces without a server: its conditions, and the 5 s delay."""

from __future__ import annotations

import asyncio

from svc.controllers.namespace import NamespaceController
from svc.controllers.namespace_content import Remaining, conditions, merge_conditions
from tests.controllers.fakes import make_context


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
