"""The watches a server is serving: each ends as soon as its client's connection closes, and
together they hold no more than a bound of memory.

What a watch holds of its own is what was made for its client and not yet taken: bytes waiting in
its connection's write buffer and the cache events queued for it. Its initial state is not its
own: it walks the watch cache's shared snapshot (see `svc.registry.initial_events`), and what it has
encoded of it sits in the write buffer, where it is counted.

Policy when the total is over the bound: the costliest watches are ended first, until the total is
within it. Upstream's cacher likewise stops a watcher whose buffer stays full ("Forcing ... watcher
close due to unresponsiveness"): the stream ends with no further event (no ERROR; only a watcher
that awaits a requested bookmark has its buffered events drained first) and the client lists and
watches again. Here the connection is aborted rather than ended cleanly, because a clean end would
first have to deliver the very bytes whose memory is the problem.
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp.web_protocol import RequestHandler

from svc.registry.watch import WatchStream

log = logging.getLogger(__name__)

DEFAULT_MEMORY_LIMIT = 256 * 1024 * 1024
CHECK_INTERVAL = 1.0
"""How often the total is summed while watches are served; a write that finds its connection backed
up asks for a sum sooner (at most every `_SOON` seconds)."""
_SOON = 0.05
END_WAIT = 1.0
"""The least time watches are given to end cleanly at shutdown (the grace period flag may give more)."""


class ServedWatch:
    """One watch being served: its connection, its stream, and the task serving it."""

    __slots__ = ("stream", "task", "transport")

    def __init__(self, transport: asyncio.Transport, stream: WatchStream, task: asyncio.Task[object]) -> None:
        self.transport = transport
        self.stream = stream
        self.task = task

    def held_bytes(self) -> int:
        return self.transport.get_write_buffer_size() + self.stream.pending_bytes

    def end(self) -> None:
        """Drop the connection (and what it buffers) and stop the task serving it."""
        self.transport.abort()
        self.task.cancel()


class Watches:
    def __init__(self, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> None:
        self.memory_limit = memory_limit
        self.ended_for_memory = 0
        self._served: dict[RequestHandler, ServedWatch] = {}
        self._check: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self._served)

    def add(self, protocol: RequestHandler, transport: asyncio.Transport, stream: WatchStream) -> ServedWatch:
        task = asyncio.current_task()
        assert task is not None
        served = self._served[protocol] = ServedWatch(transport, stream, task)
        self._schedule(CHECK_INTERVAL)
        return served

    def remove(self, protocol: RequestHandler) -> None:
        self._served.pop(protocol, None)

    def connection_lost(self, protocol: RequestHandler) -> None:
        """The client has gone: end its watch now rather than at its timeout."""
        served = self._served.pop(protocol, None)
        if served is not None:
            served.task.cancel()

    async def end_all(self, grace: float) -> None:
        """End every watch cleanly (server shutdown) and give them `grace` seconds (at least
        `END_WAIT`) to write what they hold; those still writing then are cut."""
        served = list(self._served.values())
        for watch in served:
            watch.stream.end()
        tasks = [watch.task for watch in served if not watch.task.done()]
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=max(grace, END_WAIT))
            for watch in served:
                if watch.task in late:
                    watch.end()

    def close(self) -> None:
        if self._check is not None:
            self._check.cancel()
            self._check = None

    def backed_up(self) -> None:
        """A watch's connection holds more than it should: sum the total soon."""
        self._schedule(_SOON)

    def _schedule(self, delay: float) -> None:
        loop = asyncio.get_running_loop()
        if self._check is not None:
            if self._check.when() <= loop.time() + delay:
                return
            self._check.cancel()
        self._check = loop.call_later(delay, self.check)

    def check(self) -> None:
        """End the costliest watches while the memory they hold is over the limit."""
        self._check = None
        if not self._served:
            return
        held = [(served.held_bytes(), protocol) for protocol, served in self._served.items()]
        total = sum(size for size, _ in held)
        if total > self.memory_limit:
            held.sort(key=lambda entry: entry[0], reverse=True)
            for size, protocol in held:
                if total <= self.memory_limit:
                    break
                served = self._served.pop(protocol)
                log.warning("ending a watch holding %d bytes: watches hold %d, over the limit", size, total)
                served.end()
                self.ended_for_memory += 1
                total -= size
        self._schedule(CHECK_INTERVAL)
