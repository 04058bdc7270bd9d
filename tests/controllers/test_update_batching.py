"""The batch-period flags: pod changes reach the endpoints and endpointslice controllers' queues (and
EndpointSlice changes the mirroring controller's) only after the period, so a burst is one sync."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from svc.controllers.endpoints import EndpointsController
from svc.controllers.endpointslice import EndpointSliceController
from svc.controllers.endpointslicemirroring import MANAGER, EndpointSliceMirroringController
from tests.controllers.fakes import make_context

SERVICE = {"metadata": {"name": "web", "namespace": "team"}, "spec": {"selector": {"app": "web"}}}


def pod(name: str) -> dict:
    return {"metadata": {"name": name, "namespace": "team", "labels": {"app": "web"}}, "spec": {}, "status": {}}


@pytest.mark.parametrize("build", [EndpointsController, EndpointSliceController])
def test_pod_changes_are_queued_once_after_the_batch_period(build: Callable[..., Any]) -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = build(context, batch_period=2.0)
        controller.services.replace([SERVICE])
        while len(controller.queue):
            controller.queue.done(await controller.queue.get())
        controller.pods.replace([pod("a"), pod("b")])
        assert len(controller.queue) == 0
        await context.clock.advance(2.0)
        assert len(controller.queue) == 1

    asyncio.run(scenario())


def test_mirroring_waits_the_batch_period_after_a_slice_change() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = EndpointSliceMirroringController(context, batch_period=1.0)
        labels = {
            controller.managed_by_label: MANAGER,
            controller.service_label: "web",
        }
        controller.slices.replace([{"metadata": {"name": "web-x", "namespace": "team", "labels": labels}}])
        assert len(controller.queue) == 0
        await context.clock.advance(1.0)
        assert len(controller.queue) == 1

    asyncio.run(scenario())
