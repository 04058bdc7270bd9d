"""The watch cache: one per resource, fed by the backend's watch, serving lists and watches.

It holds the current state of every object of the resource (as JSON bytes, see cached_object) and a
window of recent events (5 minutes by default). Lists at `resourceVersion=0`, NotOlderThan lists, and
consistent lists (after the cache has caught up with the backend's current revision) are answered
from memory; every watch starts from the window. Events are applied in revision order by one task,
so every watcher sees the same order.

Fan-out is batched in time: an event is appended to each interested watcher's pending list, and the
watchers are woken together at most once per flush interval. A thousand watchers on a busy resource
then cost a thousand wake-ups per interval rather than per event, and each wakes with every event it
missed, which it can send in one write. A watcher that falls too far behind is ended with an error
instead of slowing the others. Encodings made for one event are shared by every watcher for a few
flushes, then dropped so the window keeps objects, not their encodings.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from bisect import bisect_left, insort
from collections import deque
from collections.abc import Callable
from typing import Any

from svc.machinery import wallclock
from svc.storage import errors
from svc.storage.backend import EventType, KeyValue, Progress, range_pages
from svc.storage.cached_object import CachedObject
from svc.storage.objects import ObjectStore

Obj = dict[str, Any]
log = logging.getLogger(__name__)

DEFAULT_HISTORY_SECONDS = 300.0
DEFAULT_WATCHER_BUFFER = 1000
FLUSH_INTERVAL = 0.05
_LOAD_PAGE = 5000
_RETRY_MIN = 0.1
_RETRY_MAX = 2.0
_SHARED_FLUSHES = 3


class CacheEvent:
    """One change as watchers see it; `prev` is the object before the change (None for a create).
    For a deletion `object` is the last state with the deletion's resourceVersion."""

    __slots__ = ("_gone", "encoded", "key", "object", "prev", "revision", "timestamp", "type")

    def __init__(
        self,
        type: EventType,
        key: str,
        object: CachedObject,
        prev: CachedObject | None,
        revision: int,
        timestamp: float,
    ) -> None:
        self.type = type
        self.key = key
        self.object = object
        self.prev = prev
        self.revision = revision
        self.timestamp = timestamp
        self.encoded: dict[Any, Any] | None = None
        self._gone: CachedObject | None = object if type is EventType.DELETE else None

    def shared(self, cache_key: Any, make: Callable[[], Any]) -> Any:
        """Something every watcher derives alike from this event (its encoding in a format, its
        watch event for a version), made once and shared while the event is recent."""
        if self.encoded is None:
            self.encoded = {}
        data = self.encoded.get(cache_key)
        if data is None:
            data = self.encoded[cache_key] = make()
        return data

    def gone(self) -> CachedObject:
        """The previous object at this event's resourceVersion: what a watcher whose selection the
        object left receives as DELETED."""
        if self._gone is None:
            assert self.prev is not None
            obj = self.prev.decode()
            obj.setdefault("metadata", {})["resourceVersion"] = str(self.revision)
            self._gone = CachedObject.of(obj)
        return self._gone


class WatcherTooSlowError(errors.StorageError):
    pass


TOO_SLOW = "the watcher could not keep up with the event stream and was closed"


class CacheWatch:
    """One watcher's stream: the backlog from the window first, then what each flush brings."""

    def __init__(self, cache: WatchCache, start: str, end: str, backlog: list[CacheEvent]) -> None:
        self.cache = cache
        self.start = start
        self.end = end
        self.pending = backlog
        self.pending_bytes = sum(len(event.object.data) for event in backlog)
        """The size of the objects of the pending events: what delivering them will take."""
        self.failed: errors.StorageError | None = None
        self.closed = False
        self.progress: int | None = None
        self.sink: Callable[[list[CacheEvent]], None] | None = None
        self._wake: asyncio.Future[None] | None = None

    def push(self, sink: Callable[[list[CacheEvent]], None]) -> None:
        """From now on hand each flush's events to `sink` (which must not block) instead of waking a
        reader: a caught-up watcher then costs the flush one call, not a task switch. `next_batch`
        still reports the end of the watch and its failure."""
        self.sink = sink

    def fail(self, reason: str) -> None:
        self.end_with(WatcherTooSlowError(reason))

    def end_with(self, error: errors.StorageError) -> None:
        """End the watch; its reader gets `error`."""
        self.failed = error
        self.pending = []
        self.pending_bytes = 0
        self.finish()

    def flush(self) -> None:
        if self.sink is None or not self.pending:
            self.wake()
            return
        batch, self.pending = self.pending, []
        self.pending_bytes = 0
        self.progress = self.cache.revision
        try:
            self.sink(batch)
        except Exception as error:  # one watcher's failure must not stop the flush for the others
            log.exception("watch of %s failed", self.cache.prefix)
            self.fail(f"the watch failed: {error}")

    async def next_batch(self, wait_seconds: float) -> list[CacheEvent] | None:
        """Every event delivered since the last call; [] when `wait_seconds` pass first; None once the
        watch has ended. Raises WatcherTooSlowError when it fell too far behind."""
        if not self.pending and not self.closed:
            wake = self._wake = asyncio.get_running_loop().create_future()
            timer = wallclock.call_later(wait_seconds, lambda: _settle(wake))
            try:
                await wake
            finally:
                timer.cancel()
                self._wake = None
        if self.failed is not None:
            raise self.failed
        self.progress = self.cache.revision
        if self.pending:
            batch, self.pending = self.pending, []
            self.pending_bytes = 0
            return batch
        return None if self.closed else []

    def finish(self) -> None:
        self.closed = True
        self.cache.forget(self)
        self.wake()

    async def close(self) -> None:
        self.finish()

    def wake(self) -> None:
        if self._wake is not None:
            _settle(self._wake)

    def deliver(self, event: CacheEvent, limit: int) -> bool:
        """Queue an event; False when `limit` are already waiting (the caller then ends the watch)."""
        if len(self.pending) >= limit:
            return False
        self.pending.append(event)
        self.pending_bytes += len(event.object.data)
        return True


class Snapshot:
    """Every cached object at one revision, in key order: built once, on the first read after a
    change, and shared by every list and every watch's initial events at that revision. A reader
    holds it (not a copy) while it walks it, so a thousand watches starting together cost one."""

    __slots__ = ("keys", "objects")

    def __init__(self, keys: list[str], state: dict[str, CachedObject]) -> None:
        self.keys = list(keys)
        self.objects = [state[key] for key in keys]

    def span(self, start: str, end: str) -> range:
        """Indexes of the objects with keys in [start, end)."""
        return range(bisect_left(self.keys, start), bisect_left(self.keys, end))


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class WatchCache:
    def __init__(
        self,
        objects: ObjectStore,
        prefix: str,
        *,
        history_seconds: float = DEFAULT_HISTORY_SECONDS,
        watcher_buffer: int = DEFAULT_WATCHER_BUFFER,
        flush_interval: float = FLUSH_INTERVAL,
        clock: Callable[[], float] = wallclock.monotonic,
    ) -> None:
        self.objects = objects
        self.prefix = prefix
        self.history_seconds = history_seconds
        self.watcher_buffer = watcher_buffer
        self.flush_interval = flush_interval
        self.clock = clock
        self.state: dict[str, CachedObject] = {}
        self.corrupt: dict[str, errors.CorruptObjectError] = {}
        self.events: deque[CacheEvent] = deque()
        self.revision = 0
        self.oldest_revision = 0
        self._watchers: set[CacheWatch] = set()
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._flush_timer: asyncio.TimerHandle | None = None
        self._last_flush = 0.0
        self._woken: set[CacheWatch] = set()
        self._recent: deque[list[CacheEvent]] = deque()
        self._unflushed: list[CacheEvent] = []
        self._keys: list[str] = []
        """The keys of `state`, kept sorted as they come and go, so a snapshot is a copy, not a sort."""
        self._snapshot: Snapshot | None = None

    # -- feeding -----------------------------------------------------------------------------
    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"watch-cache {self.prefix}")
        await self._ready.wait()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._flush_timer is not None:
            self._flush_timer.cancel()
        self._flush()
        for watcher in list(self._watchers):
            watcher.finish()

    def halt(self) -> None:
        """Stop following the backend now, before its contents are replaced (a snapshot restore), so
        the cache does not relist on its own first; `reload` starts it again."""
        if self._task is not None:
            self._task.cancel()

    async def resume(self) -> None:
        """Follow the backend again after `halt`, from the revision the cache stands at (the backend's
        contents were not replaced after all); open watches go on."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = asyncio.create_task(self._run(loaded=True), name=f"watch-cache {self.prefix}")

    async def reload(self, state: dict[str, CachedObject] | None = None, revision: int = 0) -> None:
        """Start over from the backend, whose contents were replaced (a snapshot was restored): load
        the new state, or install `state` at `revision` when the caller already has it (snapshot
        images), then end every watch as compacted so that its client relists."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None
        self._woken.clear()
        self._unflushed = []
        self._ready.clear()
        if state is None:
            await self.start()
        else:
            self._install(state, {}, revision)
            self._task = asyncio.create_task(self._run(loaded=True), name=f"watch-cache {self.prefix}")
        for watcher in list(self._watchers):
            watcher.end_with(errors.CompactedError(watcher.progress or 0, self.revision))

    async def _run(self, *, loaded: bool = False) -> None:
        """Load, then follow the backend's watch. A lost watch (etcd restarting) resumes from the
        cache's revision, so no change is skipped; only when that history is compacted away does the
        cache relist, and then its watches end as compacted (their clients relist too)."""
        pause = _RETRY_MIN
        while True:
            try:
                if not loaded:
                    await self._load()
                    loaded = True
                events = self.objects.backend.watch(self.prefix, after_revision=self.revision, progress_notify=True)
                async for event in events:
                    pause = _RETRY_MIN
                    if isinstance(event, Progress):
                        self._advance(event.revision)
                        continue
                    try:
                        self._apply(self.objects.object_event(event))
                    except errors.CorruptObjectError as error:
                        self._apply_corrupt(event, error)
            except asyncio.CancelledError:
                raise
            except errors.CompactedError as error:
                log.warning("watch cache %s relisting after: %s", self.prefix, error)
                if loaded:
                    loaded = False
                    for watcher in list(self._watchers):
                        watcher.end_with(errors.CompactedError(watcher.progress or 0, self.revision))
            except errors.StorageError as error:
                log.warning("watch cache %s resuming at %d after: %s", self.prefix, self.revision, error)
                await asyncio.sleep(pause)
                pause = min(pause * 2, _RETRY_MAX)

    async def _load(self) -> None:
        """Read the whole prefix a page at a time (so the raw values of a large resource are never all
        in memory at once); values that cannot be decoded are remembered as corrupt."""
        state: dict[str, CachedObject] = {}
        corrupt: dict[str, errors.CorruptObjectError] = {}
        revision = 0
        async for page in range_pages(self.objects.backend, self.prefix, _LOAD_PAGE):
            revision = page.revision
            for kv in page.kvs:
                self._load_one(kv, state, corrupt)
        self._install(state, corrupt, revision)

    def _install(self, state: dict[str, CachedObject], corrupt: dict[str, Any], revision: int) -> None:
        self.state, self.corrupt = state, corrupt
        self._keys = sorted(state)
        self._snapshot = None
        self.events.clear()
        self.revision = self.oldest_revision = revision
        self._ready.set()
        self._wake()

    def _load_one(self, kv: KeyValue, state: dict[str, CachedObject], corrupt: dict[str, Any]) -> None:
        try:
            state[kv.key] = CachedObject.of(self.objects.decode(kv))
        except errors.CorruptObjectError as error:
            corrupt[kv.key] = error

    def _apply_corrupt(self, event: Any, error: errors.CorruptObjectError) -> None:
        """A change whose value cannot be decoded: the key is corrupt until it is rewritten or removed."""
        key = event.kv.key
        if event.type is EventType.DELETE:
            self.corrupt.pop(key, None)
        else:
            self._drop(key)
            self.corrupt[key] = error
        self._advance(event.revision)

    def _apply(self, event: Any) -> None:
        self.corrupt.pop(event.key, None)
        prev = self.state.get(event.key)
        if event.type is EventType.DELETE:
            self._drop(event.key)
            obj = prev.decode() if prev is not None else event.object
            obj.setdefault("metadata", {})["resourceVersion"] = str(event.revision)
            gone = CachedObject.of(obj)
            cache_event = CacheEvent(EventType.DELETE, event.key, gone, prev or gone, event.revision, self.clock())
        else:
            current = self._put(event.key, CachedObject.of(event.object))
            cache_event = CacheEvent(EventType.PUT, event.key, current, prev, event.revision, self.clock())
        self.events.append(cache_event)
        self.revision = event.revision
        self._trim()
        behind = []
        for watcher in self._watchers:
            if watcher.start <= event.key < watcher.end:
                if watcher.deliver(cache_event, self.watcher_buffer):
                    self._woken.add(watcher)
                else:
                    behind.append(watcher)
        for watcher in behind:
            watcher.fail(TOO_SLOW)
        self._unflushed.append(cache_event)
        self._schedule_flush()
        self._wake()

    def _put(self, key: str, obj: CachedObject) -> CachedObject:
        if key not in self.state:
            insort(self._keys, key)
        self.state[key] = obj
        self._snapshot = None
        return obj

    def _drop(self, key: str) -> None:
        if self.state.pop(key, None) is not None:
            del self._keys[bisect_left(self._keys, key)]
            self._snapshot = None

    def _schedule_flush(self) -> None:
        if self._flush_timer is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._last_flush + self.flush_interval - loop.time())
        self._flush_timer = loop.call_later(delay, self._flush)

    def _flush(self) -> None:
        """Wake every watcher with pending events; forget the encodings of events flushed a few
        intervals ago (their watchers have written them by now)."""
        self._flush_timer = None
        self._last_flush = asyncio.get_running_loop().time()
        woken, self._woken = self._woken, set()
        for watcher in woken:
            watcher.flush()
        self._recent.append(self._unflushed)
        self._unflushed = []
        if len(self._recent) > _SHARED_FLUSHES:
            for event in self._recent.popleft():
                event.encoded = None

    def _advance(self, revision: int) -> None:
        """Nothing of this resource changed up to `revision`: the cache is that current."""
        if revision > self.revision:
            self.revision = revision
            self._wake()

    def _trim(self) -> None:
        horizon = self.clock() - self.history_seconds
        while self.events and self.events[0].timestamp < horizon:
            self.oldest_revision = self.events.popleft().revision

    def _wake(self) -> None:
        if not self._waiters:
            return
        waiting = []
        for revision, future in self._waiters:
            if revision <= self.revision:
                _settle(future)
            else:
                waiting.append((revision, future))
        self._waiters = waiting

    # -- reading -----------------------------------------------------------------------------
    async def wait_for(self, revision: int, limit: float) -> bool:
        """Wait until the cache has applied `revision`; False on timeout. The backend's watch is asked to
        say how current it is: a revision another resource's write produced reaches a quiet cache only so."""
        if self.revision >= revision:
            return True
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((revision, future))
        self.objects.backend.request_progress(self.prefix, revision)
        try:
            # not asyncio.wait_for: on Python 3.11 it swallows a cancellation that lands as the
            # future settles, and the cancelled task (a loop being stopped) would go on
            async with asyncio.timeout(limit):
                await future
        except TimeoutError:
            return False
        return True

    @property
    def consistent_reads(self) -> bool:
        """Whether the cache can serve a consistent read: the backend must say on demand how current
        a quiet prefix is (else reads that must be current go to the backend, as upstream does)."""
        return self.objects.backend.progress_on_demand

    async def fresh(self, limit: float = 3.0) -> bool:
        """Catch up with the backend's current revision (a consistent read from the cache); False at
        once when the backend cannot tell how current the cache is."""
        if not self.consistent_reads:
            return False
        return await self.wait_for(await self.objects.backend.current_revision(), limit)

    def get(self, key: str) -> Obj | None:
        """A decoded copy of one cached object."""
        cached = self.state.get(key)
        return None if cached is None else cached.decode()

    def snapshot(self, start: str, end: str) -> list[tuple[str, CachedObject]]:
        """Objects in [start, end) by key; raises CorruptObjectError when one cannot be decoded."""
        shared, span = self.shared_snapshot(start, end)
        return list(zip(shared.keys[span.start : span.stop], shared.objects[span.start : span.stop], strict=True))

    def shared_snapshot(self, start: str, end: str) -> tuple[Snapshot, range]:
        """The shared snapshot at the current revision and the indexes of its objects in [start, end);
        raises CorruptObjectError when one of those cannot be decoded."""
        for key, error in self.corrupt.items():
            if start <= key < end:
                raise error
        if self._snapshot is None:
            self._snapshot = Snapshot(self._keys, self.state)
        return self._snapshot, self._snapshot.span(start, end)

    def watch(self, start: str, end: str, after_revision: int) -> CacheWatch:
        """Events under [start, end) after `after_revision`. Raises errors.CompactedError when that
        point is older than the window (the caller answers 410)."""
        if after_revision < self.oldest_revision:
            raise errors.CompactedError(after_revision, self.oldest_revision)
        backlog = [e for e in self.events if e.revision > after_revision and start <= e.key < end]
        watcher = CacheWatch(self, start, end, backlog)
        self._watchers.add(watcher)
        return watcher

    def forget(self, watcher: CacheWatch) -> None:
        self._watchers.discard(watcher)
        self._woken.discard(watcher)
