"""The controllers' informer factory: one cache per resource, trimmed, started whenever more are asked for."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

from tests.controllers.fakes import make_context


def test_a_metadata_informer_is_the_full_one_a_controller_already_asked_for() -> None:
    context, _ = make_context()
    full = context.informers.informer("rbac.authorization.k8s.io", "v1", "roles")
    assert context.informers.metadata_informer("rbac.authorization.svc", "v1", "roles") is full
    assert context.informers.metadata_informers == {}


def test_a_metadata_only_informer_is_shared_and_asks_for_partial_metadata() -> None:
    context, _ = make_context()
    first = context.informers.metadata_informer("apps", "v1", "deployments")
    assert context.informers.metadata_informer("apps", "v1", "deployments") is first
    assert first.source.metadata_group == context.profile.meta_group  # type: ignore[attr-defined]


class EmptySource:
    """An empty collection whose watch stays open; counts lists."""

    def __init__(self) -> None:
        self.lists = 0

    async def list(self, params: Mapping[str, str]) -> dict[str, Any]:
        self.lists += 1
        return {"items": [], "metadata": {"resourceVersion": "1"}}

    async def watch(self, params: Mapping[str, str]) -> AsyncIterator[dict[str, Any]]:
        await asyncio.Event().wait()
        yield {}


def test_informers_asked_for_after_start_are_started_by_the_next_start_once() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        first = context.informers.informer("", "v1", "namespaces")
        first.source = EmptySource()
        context.informers.start()
        second = context.informers.metadata_informer("apps", "v1", "deployments")
        second.source = EmptySource()
        context.informers.start()
        await asyncio.wait_for(context.informers.wait_for_sync(), 5)
        await context.informers.stop()
        assert [first.source.lists, second.source.lists] == [1, 1]  # type: ignore[attr-defined]

    asyncio.run(scenario())
