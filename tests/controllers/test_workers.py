"""Workers: a failing sync is retried with a growing backoff on the fake clock, never in a hot loop."""

from __future__ import annotations

import asyncio

from svc.client.clock import FakeClock
from svc.client.workers import process_next
from svc.client.workqueue import RateLimitingQueue


def test_a_failing_key_is_requeued_after_its_backoff_and_forgotten_once_it_succeeds() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        queue: RateLimitingQueue[str] = RateLimitingQueue(clock=clock)
        attempts = 0

        async def sync(key: str) -> None:
            nonlocal attempts
            attempts += 1
            if attempts < 3:
                raise ValueError("cannot handle this object")

        queue.add("ns/bad")
        await process_next(queue, sync, name="test")
        assert len(queue) == 0
        await clock.advance(0.005)
        assert len(queue) == 1
        await process_next(queue, sync, name="test")
        await clock.advance(0.009)
        assert len(queue) == 0
        await clock.advance(0.001)
        await process_next(queue, sync, name="test")
        assert attempts == 3
        assert queue.retries("ns/bad") == 0

    asyncio.run(scenario())
