"""The waits of `svc.machinery.wallclock` under a bound fake clock: nothing fires until an advance
reaches it, and everything due fires at that advance."""

from __future__ import annotations

import asyncio

import pytest

from svc.machinery import wallclock
from svc.machinery.ttl_cache import TTLCache
from svc.machinery.wallclock import FakeWallClock


def _run(scenario) -> None:
    """Run `scenario(clock)` with a fake clock bound, as a server under `--clock=fake` binds its own."""

    async def bound() -> None:
        clock = FakeWallClock(1000.0)
        wallclock.bind(clock)
        await scenario(clock)

    asyncio.run(bound())


def test_a_sleep_ends_at_the_advance_that_reaches_it() -> None:
    async def scenario(clock: FakeWallClock) -> None:
        sleeping = asyncio.ensure_future(wallclock.sleep(10))
        await asyncio.sleep(0)
        clock.advance(9.5)
        await asyncio.sleep(0)
        assert not sleeping.done()
        clock.advance(0.5)
        await asyncio.wait_for(sleeping, 5)

    _run(scenario)


def test_a_timeout_expires_on_the_fake_clock() -> None:
    async def scenario(clock: FakeWallClock) -> None:
        async def held() -> None:
            async with wallclock.timeout(30):
                await asyncio.Event().wait()

        holding = asyncio.ensure_future(held())
        await asyncio.sleep(0)
        clock.advance(31)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(holding, 5)

    _run(scenario)


def test_wait_says_whether_the_future_finished_first() -> None:
    async def scenario(clock: FakeWallClock) -> None:
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiting = asyncio.ensure_future(wallclock.wait(never, 5))
        await asyncio.sleep(0)
        clock.advance(5)
        assert await asyncio.wait_for(waiting, 5) is False
        assert not never.cancelled()
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        assert await wallclock.wait(done, 5) is True

    _run(scenario)


def test_a_cancelled_timer_does_not_fire() -> None:
    async def scenario(clock: FakeWallClock) -> None:
        fired: list[str] = []
        wallclock.call_later(1, lambda: fired.append("kept"))
        wallclock.call_later(1, lambda: fired.append("cancelled")).cancel()
        clock.advance(1)
        assert fired == ["kept"]

    _run(scenario)


def test_ttl_cache_entries_expire_with_the_fake_clock() -> None:
    async def scenario(clock: FakeWallClock) -> None:
        cache: TTLCache[str, int] = TTLCache(10)
        cache.put("answer", 42, ttl=120)
        clock.advance(119)
        assert cache.get("answer") == (True, 42)
        clock.advance(1)
        assert cache.get("answer") == (False, None)

    _run(scenario)


def test_a_timeout_on_a_known_loop_ends_the_block_with_timeout_error() -> None:
    async def scenario() -> str:
        loop = asyncio.get_running_loop()
        try:
            async with wallclock.timeout(0.01, loop):
                await asyncio.sleep(5)
        except TimeoutError:
            task = asyncio.current_task()
            assert task is not None and task.cancelling() == 0
            return "timed out"
        return "finished"

    assert asyncio.run(scenario()) == "timed out"


def test_a_timeout_on_a_known_loop_leaves_a_block_that_finished_in_time_alone() -> None:
    async def scenario() -> None:
        async with wallclock.timeout(5, asyncio.get_running_loop()):
            await asyncio.sleep(0)
        await asyncio.sleep(0.02)  # its timer was cancelled: nothing cancels the task later

    asyncio.run(scenario())


def test_a_cancellation_from_outside_a_timeout_on_a_known_loop_stays_a_cancellation() -> None:
    async def scenario() -> None:
        async def held() -> None:
            async with wallclock.timeout(5, asyncio.get_running_loop()):
                await asyncio.Event().wait()

        holding = asyncio.ensure_future(held())
        await asyncio.sleep(0)
        holding.cancel()
        with pytest.raises(asyncio.CancelledError):
            await holding

    asyncio.run(scenario())


def test_a_timeout_given_a_loop_still_follows_a_bound_fake_clock() -> None:
    async def scenario(clock: FakeWallClock) -> None:
        async def held() -> None:
            async with wallclock.timeout(30, asyncio.get_running_loop()):
                await asyncio.Event().wait()

        holding = asyncio.ensure_future(held())
        await asyncio.sleep(0.05)
        assert not holding.done()
        clock.advance(31)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(holding, 5)

    _run(scenario)
