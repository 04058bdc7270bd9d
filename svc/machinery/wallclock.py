"""The time a server writes into objects and checks expiries against: real, or fake under `--clock=fake`.

Timestamps (creationTimestamp, deletionTimestamp, managed fields, conditions, audit events) and
token time windows read `now()` here instead of `time.time()`, so a test moves a server's clock
with one call and every stamp and expiry follows. The clock in force is found through a context
variable rather than passed down every call: the server binds its clock once in its own tasks,
and several in-process servers in one interpreter (the pytest plugin's) each keep their own.
Outside any bound clock `now()` is the real time.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from datetime import UTC, datetime


class FakeWallClock:
    """Seconds since the epoch that stand still until `advance` moves them forward.

    Followers (the controller manager's clock, through `/testing/v1/clock?watch=true`) wait with
    `changed` and are woken by every advance."""

    def __init__(self, start: float) -> None:
        self._now = float(start)
        self._waiters: set[asyncio.Future[None]] = set()

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        """Move the clock forward (never back) and wake every follower; returns the new time."""
        if seconds < 0:
            raise ValueError(f"the clock cannot go back: advance by {seconds}")
        self._now += seconds
        waiters, self._waiters = self._waiters, set()
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        return self._now

    async def changed(self, seen: float) -> float:
        """The time once it differs from `seen` (callers bound the wait with `asyncio.timeout`)."""
        if self._now == seen:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.add(waiter)
            try:
                await waiter
            finally:
                self._waiters.discard(waiter)
        return self._now


_bound: contextvars.ContextVar[FakeWallClock | None] = contextvars.ContextVar("svc_wallclock", default=None)


def bind(clock: FakeWallClock | None) -> None:
    """Make `clock` the time of the current task and of the tasks it starts (None: the real time)."""
    _bound.set(clock)


def now() -> float:
    """Seconds since the epoch on the clock of the server this code runs for."""
    clock = _bound.get()
    return time.time() if clock is None else clock.now()


def now_datetime() -> datetime:
    return datetime.fromtimestamp(now(), UTC)
