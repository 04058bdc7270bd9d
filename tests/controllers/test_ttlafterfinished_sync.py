"""The ttl-after-finished controller's sync over seeded caches, on the fake clock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.client.workers import RequeueAfter
from svc.controllers.ttlafterfinished import TTLAfterFinishedController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
PATH = "/apis/batch/v1/namespaces/team/jobs/pi"
FINISHED_AT = "1970-01-01T00:16:40Z"  # the fake clock's start, 1000 s after the epoch


def job(ttl: int | None = 60, condition: str = "Complete") -> Obj:
    spec = {} if ttl is None else {"ttlSecondsAfterFinished": ttl}
    conditions = [{"type": condition, "status": "True", "lastTransitionTime": FINISHED_AT}]
    return {
        "metadata": {"name": "pi", "namespace": "team", "uid": "job-uid"},
        "spec": spec,
        "status": {"conditions": conditions},
    }


def test_a_finished_job_is_kept_until_its_ttl_runs_out_then_deleted_in_the_foreground() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TTLAfterFinishedController(context)
        controller.jobs.replace([job(condition="Failed")])
        client.objects[PATH] = job(condition="Failed")
        with pytest.raises(RequeueAfter) as later:
            await controller.sync("team/pi")
        assert later.value.seconds == 60
        assert client.calls == []
        await context.clock.advance(60)  # type: ignore[attr-defined]
        await controller.sync("team/pi")
        options = {
            "kind": "DeleteOptions",
            "apiVersion": "v1",
            "propagationPolicy": "Foreground",
            "preconditions": {"uid": "job-uid"},
        }
        assert client.calls == [("get", PATH, None), ("delete", PATH, options)]

    asyncio.run(scenario())


def test_a_ttl_lengthened_on_the_server_is_respected() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TTLAfterFinishedController(context)
        controller.jobs.replace([job(ttl=0)])
        client.objects[PATH] = job(ttl=600)
        with pytest.raises(RequeueAfter):
            await controller.sync("team/pi")
        assert [verb for verb, _, _ in client.calls] == ["get"]

    asyncio.run(scenario())


def test_running_jobs_and_jobs_without_ttl_are_not_queued_or_touched() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TTLAfterFinishedController(context)
        running = {**job(), "status": {}}
        controller.jobs.replace([running, {**job(ttl=None), "metadata": {"name": "keep", "namespace": "team"}}])
        assert len(controller.queue) == 0
        await controller.sync("team/pi")
        await controller.sync("team/keep")
        await controller.sync("team/gone")
        assert client.calls == []

    asyncio.run(scenario())
