"""Watch streams as the store serves them: events of the cache (or of the backend, for a resource
served without one) turned into ADDED/MODIFIED/DELETED by the watcher's selection, in batches.

Upstream's filtering rule: an object entering the selection is ADDED, one leaving it is DELETED (its
previous state at the event's resourceVersion). Events keep the cache's encoded object and decode it
only when a format or view needs the object itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from svc.machinery import wallclock
from svc.registry.selection import Selection
from svc.storage import errors
from svc.storage.backend import EventType
from svc.storage.cached_object import CachedObject
from svc.storage.objects import ObjectStore
from svc.storage.watch_cache import CacheEvent, CacheWatch

if TYPE_CHECKING:
    from svc.registry.initial_events import InitialEvents

Obj = dict[str, Any]
Identity = tuple[str, str]


@dataclass(slots=True, eq=False)
class WatchEvent:
    type: str
    decoded: Obj | None = None
    cached: CachedObject | None = None
    identity: Identity = ("", "")
    source: CacheEvent | None = None
    present: Callable[[Obj], Obj] | None = None
    """Shows a decoded object as the watched version when that takes a conversion of its fields."""

    @property
    def object(self) -> Obj:
        """The event's object as served (apiVersion and kind of the watched version)."""
        if self.decoded is None:
            assert self.cached is not None
            obj = self.cached.decode()
            if self.present is not None:
                obj = self.present(obj)
            else:
                obj["apiVersion"], obj["kind"] = self.identity
            self.decoded = obj
        return self.decoded


class EventSource(Protocol):
    progress: int | None
    """The revision up to which every event has been handed out (None: unknown)."""

    async def next_batch(self, wait_seconds: float) -> list[CacheEvent] | None: ...

    async def close(self) -> None: ...


def convert(
    event: CacheEvent, selection: Selection, identity: Identity, present: Callable[[Obj], Obj] | None = None
) -> WatchEvent | None:
    """The watch event a cache event makes for a watcher of `identity` (`present`: see WatchEvent)."""
    if selection.everything:
        return event.shared(identity, lambda: _converted(event, selection, identity, present))
    return _converted(event, selection, identity, present)


def _converted(
    event: CacheEvent, selection: Selection, identity: Identity, present: Callable[[Obj], Obj] | None
) -> WatchEvent | None:
    current = event.type is not EventType.DELETE and selection.matches_cached(event.object)
    previous = event.prev is not None and selection.matches_cached(event.prev)
    if current:
        kind = "MODIFIED" if previous else "ADDED"
        return WatchEvent(kind, cached=event.object, identity=identity, source=event, present=present)
    if previous:
        return WatchEvent("DELETED", cached=event.gone(), identity=identity, source=event, present=present)
    return None


class WatchStream:
    """What a watch handler reads: `first` (the initial state, bookmark or error), then batches from
    the source after revision `after`, until the source ends or fails (a last ERROR event)."""

    def __init__(
        self,
        first: InitialEvents,
        source: EventSource | None,
        select: Callable[[CacheEvent], WatchEvent | None],
        after: int,
        failure: Callable[[errors.StorageError], Obj],
        shared_as: Identity | None = None,
    ) -> None:
        self._first = first
        self._source = source
        self._select = select
        self._after = after
        self._failure = failure
        self.shared_as = shared_as
        """Set for a watch that selects everything: its batches are the same objects for every such
        watcher of the served version that is caught up, so what it derives from one can be shared."""

    @property
    def progress(self) -> int | None:
        """The revision a bookmark may carry now: every event up to it has been returned."""
        return None if self._source is None or self._first.pending else self._source.progress

    @property
    def pending_bytes(self) -> int:
        """The size of the cache events waiting for this watch (0 for a source that queues none)."""
        source = self._source
        return source.pending_bytes if isinstance(source, CacheWatch) else 0

    async def next_batch(self, wait_seconds: float) -> list[WatchEvent] | None:
        """The next events; [] when `wait_seconds` passed without any; None when the watch is over."""
        if self._first.pending:
            return self._first.take()
        if self._source is None:
            return None
        try:
            events = await self._source.next_batch(wait_seconds)
        except errors.StorageError as error:
            await self.close()
            return [WatchEvent("ERROR", decoded=self._failure(error))]
        if events is None:
            await self.close()
            return None
        return self._selected(events)

    def push(self, sink: Callable[[list[WatchEvent]], None]) -> bool:
        """Hand later batches to `sink` as the cache flushes them (see CacheWatch.push); False when
        this stream cannot: it still has its first events, or its source is not the cache."""
        source = self._source
        if self._first.pending or not isinstance(source, CacheWatch):
            return False

        def selected(events: list[CacheEvent]) -> None:
            batch = self._selected(events)
            if batch:
                sink(batch)

        source.push(selected)
        return True

    def end(self) -> None:
        """End the watch as its source ending would: the reader gets what is queued, then None, and
        the response ends cleanly (the server shutting down). A source other than the cache is closed."""
        source = self._source
        if isinstance(source, CacheWatch):
            source.finish()
        elif source is not None:
            self._source = None
            asyncio.get_running_loop().create_task(source.close())

    def fail(self, reason: str) -> None:
        """End a pushed stream (its consumer could not take a batch); the reader sees an ERROR."""
        if isinstance(self._source, CacheWatch):
            self._source.fail(reason)

    def _selected(self, events: list[CacheEvent]) -> list[WatchEvent]:
        if events and events[0].revision <= self._after:
            events = [event for event in events if event.revision > self._after]
        if not events:
            return []
        if self.shared_as is not None:
            key = ("batch", events[0].revision, len(events), self.shared_as)
            return events[-1].shared(key, lambda: self._converted(events))
        return self._converted(events)

    def _converted(self, events: list[CacheEvent]) -> list[WatchEvent]:
        select = self._select
        return [converted for event in events if (converted := select(event)) is not None]

    async def close(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            await source.close()


class BackendEvents:
    """The backend's watch in the cache's event shape, for resources served without a watch cache."""

    def __init__(self, objects: ObjectStore, prefix: str, after: int) -> None:
        self._objects = objects
        self._iterator = aiter(self._events(prefix, after))
        self._next: asyncio.Future[CacheEvent] | None = None
        self.progress: int | None = None

    async def _events(self, prefix: str, after: int) -> AsyncIterator[CacheEvent]:
        async for event in self._objects.backend.watch(prefix, after_revision=after):
            prev = self._objects.decode(event.prev) if event.prev is not None else None
            obj = self._objects.decode(event.kv)
            if event.type is EventType.DELETE:
                prev = prev or obj
            yield CacheEvent(
                event.type,
                event.kv.key,
                CachedObject.of(obj),
                None if prev is None else CachedObject.of(prev),
                event.revision,
                0.0,
            )

    async def next_batch(self, wait_seconds: float) -> list[CacheEvent] | None:
        if self._next is None:
            self._next = asyncio.ensure_future(anext(self._iterator))
        if not await wallclock.wait(self._next, wait_seconds):
            return []
        finished, self._next = self._next, None
        try:
            return [finished.result()]
        except StopAsyncIteration:
            return None

    async def close(self) -> None:
        if self._next is not None:
            self._next.cancel()
            with contextlib.suppress(BaseException):
                await self._next
        await self._iterator.aclose()  # type: ignore[attr-defined]
