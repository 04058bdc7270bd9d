"""Clocks for control loops: the real one, and a fake one that tests advance by hand.

Informers, work queues and leader election ask a clock for the time and for sleeps instead of
calling `asyncio.sleep` and `time.monotonic` directly, so a test drives an hour of backoff or a
lease expiry in microseconds and deterministically (upstream's `k8s.io/utils/clock/testing`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale."""

    def wall(self) -> float:
        """Seconds since the epoch, for comparing with timestamps in objects (a Job's finish time)."""

    async def sleep(self, seconds: float) -> None: ...


class RealClock:
    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(seconds, 0.0))


class FakeClock:
    """Time stands still until `advance` moves it; sleepers whose deadline passes are woken in order."""

    def __init__(self, start: float = 1_000.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def wall(self) -> float:
        """The fake time read as seconds since the epoch: both scales move together."""
        return self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._order), future))
        await future

    @property
    def waiters(self) -> int:
        return sum(1 for *_, future in self._sleepers if not future.done())

    async def advance(self, seconds: float) -> None:
        """Move time forward, waking every sleeper due by then, and let the woken tasks run."""
        self._now += seconds
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)
        for _ in range(5):
            await asyncio.sleep(0)
