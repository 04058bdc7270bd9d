"""The legacy token cleaner's daily pass over a fake client and clock."""

from __future__ import annotations

import asyncio

from svc.controllers.legacytokencleaner import SYNC_INTERVAL, LegacyTokenCleaner
from tests.controllers.fakes import make_context


def test_a_pass_that_times_out_is_logged_and_the_next_day_runs_again() -> None:
    async def scenario() -> None:
        context, client = make_context()
        client.failures["get"] = TimeoutError()
        cleaner = LegacyTokenCleaner(context)
        running = asyncio.create_task(cleaner.run())
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert not running.done()
        await context.clock.advance(SYNC_INTERVAL)  # type: ignore[attr-defined]
        assert [verb for verb, *_ in client.calls] == ["get", "get"]
        running.cancel()

    asyncio.run(scenario())
