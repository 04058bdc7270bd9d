"""The rate-limited work queue: deduplication, one worker per key, upstream's backoff and bucket."""

from __future__ import annotations

import asyncio

import pytest

from svc.client.clock import FakeClock
from svc.client.workqueue import ItemExponentialBackoff, RateLimitingQueue, ShutDown, TokenBucket


def test_a_key_added_twice_while_queued_is_handed_out_once() -> None:
    async def scenario() -> None:
        queue: RateLimitingQueue[str] = RateLimitingQueue(clock=FakeClock())
        queue.add("a")
        queue.add("a")
        queue.add("b")
        assert [await queue.get(), await queue.get()] == ["a", "b"]
        assert len(queue) == 0

    asyncio.run(scenario())


def test_a_key_added_while_processed_comes_back_only_after_done() -> None:
    async def scenario() -> None:
        queue: RateLimitingQueue[str] = RateLimitingQueue(clock=FakeClock())
        queue.add("a")
        key = await queue.get()
        queue.add("a")
        assert len(queue) == 0
        queue.done(key)
        assert len(queue) == 1
        assert await queue.get() == "a"

    asyncio.run(scenario())


def test_per_key_backoff_doubles_from_5ms_to_1000s_and_forget_resets_it() -> None:
    backoff: ItemExponentialBackoff[str] = ItemExponentialBackoff()
    delays = [backoff.when("a") for _ in range(20)]
    assert delays[:3] == [0.005, 0.01, 0.02]
    assert delays[-1] == 1000.0
    assert backoff.when("b") == 0.005
    backoff.forget("a")
    assert backoff.when("a") == 0.005


def test_the_overall_bucket_allows_a_burst_of_100_then_10_per_second() -> None:
    clock = FakeClock()
    bucket = TokenBucket(clock=clock)
    assert [bucket.delay() for _ in range(100)] == [0.0] * 100
    assert bucket.delay() == pytest.approx(0.1)
    assert bucket.delay() == pytest.approx(0.2)


def test_a_rate_limited_retry_waits_for_the_clock() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        queue: RateLimitingQueue[str] = RateLimitingQueue(clock=clock)
        for _ in range(3):
            queue.backoff.when("a")
        queue.add_rate_limited("a")  # 4th failure: 40 ms
        await clock.advance(0.039)
        assert len(queue) == 0
        await clock.advance(0.002)
        assert len(queue) == 1

    asyncio.run(scenario())


def test_a_waiting_worker_wakes_on_add_and_ends_on_shutdown() -> None:
    async def scenario() -> None:
        queue: RateLimitingQueue[str] = RateLimitingQueue(clock=FakeClock())
        getter = asyncio.create_task(queue.get())
        await asyncio.sleep(0)
        queue.add("a")
        assert await asyncio.wait_for(getter, 1) == "a"
        waiting = asyncio.create_task(queue.get())
        await asyncio.sleep(0)
        queue.shut_down()
        with pytest.raises(ShutDown):
            await asyncio.wait_for(waiting, 1)

    asyncio.run(scenario())
