"""Workers draining a controller's queue: `sync(key)` per key, failures retried with backoff.

A failed sync is logged and its key re-queued through the rate limiter (upstream's
`handleErr` pattern), so a key the controller cannot handle backs off to minutes instead of a hot
loop, and a healthy sync forgets the key's failure count.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from svc.client.workqueue import RateLimitingQueue, ShutDown

log = logging.getLogger(__name__)
Sync = Callable[[str], Awaitable[None]]


async def process_next(queue: RateLimitingQueue[str], sync: Sync, *, name: str) -> None:
    key = await queue.get()
    try:
        await sync(key)
    except asyncio.CancelledError:
        raise
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
