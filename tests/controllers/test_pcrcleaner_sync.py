"""The podcertificaterequest-cleaner controller over a seeded cache and the fake clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from svc.controllers.pcrcleaner import PCRCleanerController
from tests.controllers.fakes import make_context

PATH = "/apis/certificates.svc/v1beta1/namespaces/team/podcertificaterequests"


def request(name: str, created: float) -> dict:
    stamp = datetime.fromtimestamp(created, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"metadata": {"name": name, "namespace": "team", "uid": f"uid-{name}", "creationTimestamp": stamp}}


def test_requests_older_than_15_minutes_are_deleted_with_their_uid_as_precondition() -> None:
    async def scenario() -> None:
        context, client = make_context()
        now = context.clock.wall()
        controller = PCRCleanerController(context)
        controller.requests.replace([request("old", now - 15 * 60 - 1), request("young", now - 14 * 60)])
        await controller.clean()
        assert client.calls == [("delete", f"{PATH}/old", {"preconditions": {"uid": "uid-old"}})]

    asyncio.run(scenario())


def test_the_cleaner_looks_again_every_5_minutes() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PCRCleanerController(context)
        controller.requests.replace([request("r", context.clock.wall() - 12 * 60)])
        task = asyncio.create_task(controller.run())
        try:
            for _ in range(10):
                await asyncio.sleep(0)
            assert client.calls == []
            await context.clock.advance(5 * 60)
            for _ in range(10):
                await asyncio.sleep(0)
            assert [call[1] for call in client.calls] == [f"{PATH}/r"]
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(scenario())
