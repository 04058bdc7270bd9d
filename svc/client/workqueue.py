"""The controllers' work queue: deduplicated keys, one worker per key at a time, rate-limited retries.

Semantics of upstream's `client-go/util/workqueue`: a key added while queued is queued once; a key
added while a worker processes it is queued again only when that worker calls `done`, so no two
workers sync the same key at once; `add_rate_limited` delays a retry by the larger of a per-key
exponential backoff (5 ms doubling to 1000 s, reset by `forget`) and an overall token bucket
(10 per second, burst 100) - upstream's `DefaultControllerRateLimiter`. A named queue reports
client-go's `workqueue_*` metrics when a provider is installed (`svc.client.metrics`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

from svc.client.clock import Clock, RealClock
from svc.client.metrics import installed

K = TypeVar("K", bound=Hashable)


class ShutDown(Exception):
    """The queue is shut down and empty: the worker should return."""


class ItemExponentialBackoff(Generic[K]):
    def __init__(self, base: float = 0.005, maximum: float = 1000.0) -> None:
        self.base = base
        self.maximum = maximum
        self._failures: dict[K, int] = {}

    def when(self, item: K) -> float:
        failures = self._failures.get(item, 0)
        self._failures[item] = failures + 1
        if failures > 64:
            return self.maximum
        return min(self.base * 2**failures, self.maximum)

    def retries(self, item: K) -> int:
        return self._failures.get(item, 0)

    def forget(self, item: K) -> None:
        self._failures.pop(item, None)


class TokenBucket:
    """`golang.org/x/time/rate` used as `Reserve().Delay()`: every call takes a token, perhaps in debt."""

    def __init__(self, rate: float = 10.0, burst: int = 100, *, clock: Clock) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock.now()

    def delay(self) -> float:
        now = self._clock.now()
        self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.rate)
        self._last = now
        self._tokens -= 1
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate


class RateLimitingQueue(Generic[K]):
    def __init__(
        self,
        name: str = "",
        *,
        clock: Clock | None = None,
        backoff: ItemExponentialBackoff[K] | None = None,
        bucket: TokenBucket | None = None,
    ) -> None:
        self.name = name
        self.clock = clock or RealClock()
        self.backoff = backoff or ItemExponentialBackoff()
        self.bucket = bucket or TokenBucket(clock=self.clock)
        self._queue: deque[K] = deque()
        self._dirty: set[K] = set()
        self._processing: set[K] = set()
        self._waiters: list[asyncio.Future[None]] = []
        self._delayed: set[asyncio.Task[None]] = set()
        self._shutting_down = False
        self.adds = 0
        provider = installed()
        self._metrics = provider.queue(name, self.clock.now) if provider is not None and name else None

    def __len__(self) -> int:
        return len(self._queue)

    def add(self, item: K) -> None:
        if self._shutting_down or item in self._dirty:
            return
        self.adds += 1
        if self._metrics is not None:
            self._metrics.add(item)
        self._dirty.add(item)
        if item in self._processing:
            return
        self._queue.append(item)
        self._notify()

    def add_after(self, item: K, delay: float) -> None:
        if self._shutting_down:
            return
        if self._metrics is not None:
            self._metrics.retry()  # client-go counts every delayed add as a retry
        if delay <= 0:
            self.add(item)
            return
        task = asyncio.get_running_loop().create_task(self._add_later(item, self.clock.now() + delay))
        self._delayed.add(task)
        task.add_done_callback(self._delayed.discard)

    def add_rate_limited(self, item: K) -> None:
        self.add_after(item, max(self.backoff.when(item), self.bucket.delay()))

    def forget(self, item: K) -> None:
        self.backoff.forget(item)

    def retries(self, item: K) -> int:
        return self.backoff.retries(item)

    async def get(self) -> K:
        """The next key, marked as processing until `done`; raises `ShutDown` once shut down and drained."""
        while not self._queue:
            if self._shutting_down:
                raise ShutDown
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter
        item = self._queue.popleft()
        self._processing.add(item)
        self._dirty.discard(item)
        if self._metrics is not None:
            self._metrics.get(item)
        return item

    def done(self, item: K) -> None:
        if self._metrics is not None:
            self._metrics.done(item)
        self._processing.discard(item)
        if item in self._dirty:
            self._queue.append(item)
            self._notify()

    def shut_down(self) -> None:
        self._shutting_down = True
        for task in list(self._delayed):
            task.cancel()
        self._notify()

    async def _add_later(self, item: K, due: float) -> None:
        await self.clock.sleep(due - self.clock.now())
        self.add(item)

    def _notify(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
