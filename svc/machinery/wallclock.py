"""The time a server writes into objects and checks expiries against: real, or fake under `--clock=fake`.

Timestamps (creationTimestamp, deletionTimestamp, managed fields, conditions, audit events) and
token time windows read `now()` here instead of `time.time()`, so a test moves a server's clock
with one call and every stamp and expiry follows. The clock in force is found through a context
variable rather than passed down every call: the server binds its clock once in its own tasks,
and several in-process servers in one interpreter (the pytest plugin's) each keep their own.
Outside any bound clock `now()` is the real time.

Waits follow the same clock: `monotonic`, `sleep`, `call_later`, `timeout` and `wait` are asyncio's
under the real clock and, under a fake one, timers that only an advance fires. So a cached webhook
decision expires, a watch's bookmark is sent and its `timeoutSeconds` end it, and a request's
deadline passes when a test moves the clock, not while it sleeps.
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Protocol


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class FakeTimer:
    """A callback due at a time on a fake clock; `cancel` keeps it from running."""

    __slots__ = ("callback", "cancelled")

    def __init__(self, callback: Callable[[], object]) -> None:
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeWallClock:
    """Seconds since the epoch that stand still until `advance` moves them forward.

    Followers (the controller manager's clock, through `/testing/v1/clock?watch=true`) wait with
    `changed` and are woken by every advance."""

    def __init__(self, start: float) -> None:
        self._now = float(start)
        self._waiters: set[asyncio.Future[None]] = set()
        self._timers: list[tuple[float, int, FakeTimer]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        """Move the clock forward (never back) and wake every follower; returns the new time."""
        if seconds < 0:
            raise ValueError(f"the clock cannot go back: advance by {seconds}")
        self._now += seconds
        while self._timers and self._timers[0][0] <= self._now:
            timer = heapq.heappop(self._timers)[2]
            if not timer.cancelled:
                timer.callback()
        waiters, self._waiters = self._waiters, set()
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        return self._now

    def call_at(self, when: float, callback: Callable[[], object]) -> FakeTimer:
        """Run `callback` (in the advancing task, so it must be quick) once an advance reaches `when`."""
        timer = FakeTimer(callback)
        heapq.heappush(self._timers, (when, next(self._order), timer))
        return timer

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


def monotonic() -> float:
    """Seconds for measuring intervals (TTLs, deadlines): `time.monotonic` under the real clock."""
    clock = _bound.get()
    return time.monotonic() if clock is None else clock.now()


def call_later(delay: float, callback: Callable[[], object]) -> Cancellable:
    clock = _bound.get()
    if clock is None:
        return asyncio.get_running_loop().call_later(delay, callback)
    return clock.call_at(clock.now() + delay, callback)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def sleep(seconds: float) -> None:
    clock = _bound.get()
    if clock is None:
        await asyncio.sleep(seconds)
        return
    waker = asyncio.get_running_loop().create_future()
    timer = clock.call_at(clock.now() + seconds, lambda: _settle(waker))
    try:
        await waker
    finally:
        timer.cancel()


class ServerClock:
    """The clock in force as the controllers' `Clock` (svc/client/clock.py), so the API server's own
    control loops reuse their work queues and periodic runners on the server's time."""

    def now(self) -> float:
        return monotonic()

    def wall(self) -> float:
        return now()

    async def sleep(self, seconds: float) -> None:
        await (sleep(seconds) if seconds > 0 else asyncio.sleep(0))


async def wait(future: Awaitable[Any], seconds: float) -> bool:
    """Whether `future` finished within `seconds` (it is not cancelled when it did not)."""
    task = asyncio.ensure_future(future)
    clock = _bound.get()
    if clock is None:
        done, _ = await asyncio.wait({task}, timeout=seconds)
        return bool(done)
    waker = asyncio.get_running_loop().create_future()
    timer = clock.call_at(clock.now() + seconds, lambda: _settle(waker))
    try:
        await asyncio.wait({task, waker}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        timer.cancel()
        waker.cancel()
    return task.done()


def timeout(seconds: float, loop: asyncio.AbstractEventLoop | None = None) -> AbstractAsyncContextManager[Any]:
    """`asyncio.timeout(seconds)` on the clock in force: TimeoutError once it passes. A caller that
    knows the loop it runs in passes it, so the real clock's timeout need not ask asyncio for it."""
    clock = _bound.get()
    if clock is not None:
        return _FakeTimeout(clock, seconds)
    return asyncio.timeout(seconds) if loop is None else _LoopTimeout(loop, seconds)


class _LoopTimeout:
    """`asyncio.timeout` for a task of a known loop. Python 3.11's asks for the running loop three
    times (entering, scheduling, finding the task), each a getpid system call; on the request path
    that is three a request. It ends the block as asyncio's does: the task is cancelled at the
    deadline, and the cancellation becomes TimeoutError unless someone else cancelled it too."""

    __slots__ = ("_cancelling", "_expired", "_loop", "_seconds", "_task", "_timer")

    def __init__(self, loop: asyncio.AbstractEventLoop, seconds: float) -> None:
        self._loop = loop
        self._seconds = seconds
        self._expired = False

    async def __aenter__(self) -> None:
        task = asyncio.current_task(self._loop)
        if task is None:
            raise RuntimeError("Timeout should be used inside a task")
        self._task = task
        self._cancelling = task.cancelling()
        self._timer = self._loop.call_later(self._seconds, self._expire)

    def _expire(self) -> None:
        self._task.cancel()
        self._expired = True

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._timer.cancel()
        if self._expired and self._task.uncancel() <= self._cancelling and kind is asyncio.CancelledError:
            raise TimeoutError from error


class _FakeTimeout:
    """An asyncio timeout without a deadline of its own, expired by the fake clock's timer."""

    def __init__(self, clock: FakeWallClock, seconds: float) -> None:
        self._clock = clock
        self._seconds = seconds
        self._scope = asyncio.timeout(None)
        self._timer: FakeTimer | None = None

    async def __aenter__(self) -> None:
        await self._scope.__aenter__()
        self._timer = self._clock.call_at(self._clock.now() + self._seconds, self._expire)

    def _expire(self) -> None:
        self._scope.reschedule(asyncio.get_running_loop().time())

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> bool | None:
        if self._timer is not None:
            self._timer.cancel()
        return await self._scope.__aexit__(kind, error, trace)
