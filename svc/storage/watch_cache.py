"""The watch cache: one per resource, fed by the backend's watch, serving lists and watches.

It holds the current state of every object of the resource and a window of recent events (5 minutes
by default). Lists at `resourceVersion=0`, NotOlderThan lists, and consistent lists (after the cache
has caught up with the backend's current revision) are answered from memory; every watch starts from
the window. Events are applied and fanned out in revision order by one task, so every watcher sees
the same order; a watcher that cannot keep up is ended with an error instead of slowing the others.
Each event keeps its encodings, so a change seen by a thousand watchers is encoded once per format.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from svc.storage import errors
from svc.storage.backend import EventType, Progress, prefix_end
from svc.storage.objects import ObjectStore

Obj = dict[str, Any]
log = logging.getLogger(__name__)

DEFAULT_HISTORY_SECONDS = 300.0
DEFAULT_WATCHER_BUFFER = 1000


@dataclass(eq=False)
class CacheEvent:
    """One change as watchers see it; `prev` is the object before the change (None for a create)."""

    type: EventType
    key: str
    object: Obj
    prev: Obj | None
    revision: int
    timestamp: float
    encoded: dict[Any, bytes] = field(default_factory=dict)

    def encode(self, cache_key: Any, make: Callable[[], bytes]) -> bytes:
        data = self.encoded.get(cache_key)
        if data is None:
            data = self.encoded[cache_key] = make()
        return data


class WatcherTooSlowError(errors.StorageError):
    pass


@dataclass(eq=False)
class _Watcher:
    start: str
    end: str
    queue: asyncio.Queue[CacheEvent | None]
    failed: str = ""


class WatchCache:
    def __init__(
        self,
        objects: ObjectStore,
        prefix: str,
        *,
        history_seconds: float = DEFAULT_HISTORY_SECONDS,
        watcher_buffer: int = DEFAULT_WATCHER_BUFFER,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.objects = objects
        self.prefix = prefix
        self.history_seconds = history_seconds
        self.watcher_buffer = watcher_buffer
        self.clock = clock
        self.state: dict[str, Obj] = {}
        self.corrupt: dict[str, errors.CorruptObjectError] = {}
        self.events: deque[CacheEvent] = deque()
        self.revision = 0
        self.oldest_revision = 0
        self._watchers: set[_Watcher] = set()
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- feeding -----------------------------------------------------------------------------
    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"watch-cache {self.prefix}")
        await self._ready.wait()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for watcher in self._watchers:
            watcher.queue.put_nowait(None)

    async def _run(self) -> None:
        while True:
            try:
                await self._load()
                events = self.objects.backend.watch(self.prefix, after_revision=self.revision, progress_notify=True)
                async for event in events:
                    if isinstance(event, Progress):
                        self._advance(event.revision)
                        continue
                    try:
                        self._apply(self.objects.object_event(event))
                    except errors.CorruptObjectError as error:
                        self._apply_corrupt(event, error)
            except asyncio.CancelledError:
                raise
            except errors.StorageError as error:
                log.warning("watch cache %s restarting after: %s", self.prefix, error)
                await asyncio.sleep(0.1)

    async def _load(self) -> None:
        """Read the whole prefix; values that cannot be decoded are remembered as corrupt."""
        result = await self.objects.backend.range(self.prefix, prefix_end(self.prefix))
        state: dict[str, Obj] = {}
        corrupt: dict[str, errors.CorruptObjectError] = {}
        for kv in result.kvs:
            try:
                state[kv.key] = self.objects.decode(kv)
            except errors.CorruptObjectError as error:
                corrupt[kv.key] = error
        self.state, self.corrupt = state, corrupt
        self.events.clear()
        self.revision = self.oldest_revision = result.revision
        self._ready.set()

    def _apply_corrupt(self, event: Any, error: errors.CorruptObjectError) -> None:
        """A change whose value cannot be decoded: the key is corrupt until it is rewritten or removed."""
        key = event.kv.key
        if event.type is EventType.DELETE:
            self.corrupt.pop(key, None)
        else:
            self.state.pop(key, None)
            self.corrupt[key] = error
        self._advance(event.revision)

    def _apply(self, event: Any) -> None:
        self.corrupt.pop(event.key, None)
        prev = self.state.get(event.key)
        if event.type is EventType.DELETE:
            self.state.pop(event.key, None)
            obj = prev if prev is not None else event.object
            obj = {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(event.revision)}}
            cache_event = CacheEvent(EventType.DELETE, event.key, obj, prev or obj, event.revision, self.clock())
        else:
            self.state[event.key] = event.object
            cache_event = CacheEvent(EventType.PUT, event.key, event.object, prev, event.revision, self.clock())
        self.events.append(cache_event)
        self.revision = event.revision
        self._trim()
        for watcher in list(self._watchers):
            if watcher.start <= event.key < watcher.end:
                self._deliver(watcher, cache_event)
        self._wake()

    def _advance(self, revision: int) -> None:
        """Nothing of this resource changed up to `revision`: the cache is that current."""
        if revision > self.revision:
            self.revision = revision
            self._wake()

    def _trim(self) -> None:
        horizon = self.clock() - self.history_seconds
        while self.events and self.events[0].timestamp < horizon:
            self.oldest_revision = self.events.popleft().revision

    def _deliver(self, watcher: _Watcher, event: CacheEvent) -> None:
        try:
            watcher.queue.put_nowait(event)
        except asyncio.QueueFull:
            watcher.failed = "the watcher could not keep up with the event stream and was closed"
            self._watchers.discard(watcher)
            with contextlib.suppress(asyncio.QueueFull):
                watcher.queue.get_nowait()
            watcher.queue.put_nowait(None)

    def _wake(self) -> None:
        if not self._waiters:
            return
        waiting = []
        for revision, future in self._waiters:
            if revision <= self.revision:
                if not future.done():
                    future.set_result(None)
            else:
                waiting.append((revision, future))
        self._waiters = waiting

    # -- reading -----------------------------------------------------------------------------
    async def wait_for(self, revision: int, limit: float) -> bool:
        """Wait until the cache has applied `revision`; False on timeout."""
        if self.revision >= revision:
            return True
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((revision, future))
        try:
            await asyncio.wait_for(future, limit)
        except TimeoutError:
            return False
        return True

    async def fresh(self, limit: float = 3.0) -> bool:
        """Catch up with the backend's current revision (a consistent read from the cache)."""
        return await self.wait_for(await self.objects.backend.current_revision(), limit)

    def snapshot(self, start: str, end: str) -> list[tuple[str, Obj]]:
        """Objects in [start, end) by key; raises CorruptObjectError when one cannot be decoded."""
        for key, error in self.corrupt.items():
            if start <= key < end:
                raise error
        return sorted((key, obj) for key, obj in self.state.items() if start <= key < end)

    def watch(self, start: str, end: str, after_revision: int) -> AsyncIterator[CacheEvent]:
        """Events under [start, end) after `after_revision`. Raises errors.CompactedError when that
        point is older than the window (the caller answers 410)."""
        if after_revision < self.oldest_revision:
            raise errors.CompactedError(after_revision, self.oldest_revision)
        watcher = _Watcher(start, end, asyncio.Queue(self.watcher_buffer))
        backlog = [e for e in self.events if e.revision > after_revision and start <= e.key < end]
        self._watchers.add(watcher)
        return self._stream(watcher, backlog)

    async def _stream(self, watcher: _Watcher, backlog: list[CacheEvent]) -> AsyncIterator[CacheEvent]:
        try:
            for event in backlog:
                yield event
            while True:
                event = await watcher.queue.get()
                if event is None:
                    if watcher.failed:
                        raise WatcherTooSlowError(watcher.failed)
                    return
                yield event
        finally:
            self._watchers.discard(watcher)
