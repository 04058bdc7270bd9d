"""Workers draining a controller's queue: `sync(key)` per key, failures retried with backoff.

A failed sync is logged and its key re-queued through the rate limiter (upstream's
`handleErr` pattern), so a key the controller cannot handle backs off to minutes instead of a hot
loop, and a healthy sync forgets the key's failure count.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from svc.client.clock import Clock
from svc.client.workqueue import RateLimitingQueue, ShutDown

log = logging.getLogger(__name__)
Sync = Callable[[str], Awaitable[None]]


class RequeueAfter(Exception):
    """Raised by a sync that is not done yet but knows when to look again (namespace content still
    terminating): the key comes back after `seconds`, without counting as a failure."""

    def __init__(self, seconds: float, why: str = "") -> None:
        super().__init__(why or f"requeue after {seconds}s")
        self.seconds = seconds


async def process_next(queue: RateLimitingQueue[str], sync: Sync, *, name: str) -> None:
    key = await queue.get()
    try:
        await sync(key)
    except asyncio.CancelledError:
        raise
    except RequeueAfter as later:
        log.info("%s: %r not done: %s", name, key, later)
        queue.forget(key)
        queue.add_after(key, later.seconds)
    except Exception as error:
        log.warning("%s: syncing %r failed (retry %d): %s", name, key, queue.retries(key), error)
        queue.add_rate_limited(key)
    else:
        queue.forget(key)
    finally:
        queue.done(key)


async def run_workers(queue: RateLimitingQueue[str], sync: Sync, *, workers: int, name: str) -> None:
    """Run `workers` loops until the queue shuts down or the task is cancelled."""

    async def worker() -> None:
        try:
            while True:
                await process_next(queue, sync, name=name)
        except ShutDown:
            return

    try:
        await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        queue.shut_down()


async def every(clock: Clock, period: float, step: Callable[[], Awaitable[None]]) -> None:
    """upstream's `wait.Until`: run `step` now and then every `period` after it ends, until cancelled.

    A step that fails (the server refused a write, the connection dropped) is logged, as upstream's
    periodic controllers hand their errors to `HandleError`, and the next one runs on time: one bad
    pass must not stop the controller, and with it the whole daemon."""
    while True:
        try:
            await step()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.warning("%s failed: %s", getattr(step, "__qualname__", step), error)
        await clock.sleep(period)
