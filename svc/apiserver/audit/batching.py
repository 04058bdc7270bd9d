"""Upstream's buffered backend, for `batch` mode: events wait in a bounded buffer and leave in batches.

A batch is sent when it holds `max_batch_size` events or `max_wait` seconds after its first event,
whichever comes first; with throttling, batches leave at `throttle_qps` a second on average (a token
bucket of `throttle_burst`). When the buffer is full (the receiver is slower than the requests for
long enough) new events are dropped and counted, as upstream drops them: batch mode trades
completeness for never making a request wait on auditing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from svc.apiserver.audit.event import AuditItem, audit_id
from svc.apiserver.audit.options import BatchOptions

log = logging.getLogger(__name__)
Event = AuditItem
Send = Callable[[list[Event]], Awaitable[None]]


class _TokenBucket:
    def __init__(self, qps: float, burst: int) -> None:
        self.qps = qps
        self.capacity = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    async def take(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.qps)
        self.stamp = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / self.qps)
            self.stamp = time.monotonic()
            self.tokens = 1.0
        self.tokens -= 1


class BatchBuffer:
    def __init__(self, options: BatchOptions, send: Send, on_drop: Callable[[int], None]) -> None:
        self._options = options
        self._send = send
        self._on_drop = on_drop
        self._queue: asyncio.Queue[Event] | None = None
        self._task: asyncio.Task[None] | None = None
        self._bucket = _TokenBucket(options.throttle_qps, options.throttle_burst) if options.throttle_enable else None
        self._held: list[Event] = []
        """Taken from the queue and not yet handed to a send (sent by `close` if the loop stops first)."""
        self._sending: asyncio.Future[None] | None = None

    def process(self, event: Event) -> None:
        if self._queue is None:
            self._queue = asyncio.Queue(self._options.buffer_size)
            self._task = asyncio.get_running_loop().create_task(self._run(), name="audit-batches")
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            log.error("audit buffer queue blocked, dropping event %s", audit_id(event))
            self._on_drop(1)

    async def _fill(self, queue: asyncio.Queue[Event]) -> None:
        """Take the next batch into `_held`."""
        self._held.append(await queue.get())
        deadline = time.monotonic() + self._options.max_wait
        while len(self._held) < self._options.max_batch_size:
            if not queue.empty():
                self._held.append(queue.get_nowait())
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                self._held.append(await asyncio.wait_for(queue.get(), remaining))
            except TimeoutError:
                break

    async def _run(self) -> None:
        assert self._queue is not None
        while True:
            await self._fill(self._queue)
            if self._bucket is not None:
                await self._bucket.take()
            batch, self._held = self._held, []
            self._sending = asyncio.ensure_future(self._send(batch))
            await asyncio.shield(self._sending)

    async def close(self) -> None:
        """Finish the batch being sent, send what is buffered (unthrottled, in full batches), then stop."""
        if self._task is None or self._queue is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        if self._sending is not None:
            await self._sending
        pending, self._held = self._held, []
        while not self._queue.empty():
            pending.append(self._queue.get_nowait())
        size = self._options.max_batch_size
        for start in range(0, len(pending), size):
            await self._send(pending[start : start + size])
