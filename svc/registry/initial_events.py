"""A watch's initial events (the current state as ADDED, then the bookmark that ends them), made a
batch at a time as the handler asks for them.

Holding them all as events for the life of the watch cost each watch a multiple of the state (as
frames, then as bytes queued on its connection): 5,000 watches over 1.9 MB of objects took 19 GB.
Here a watch walks the watch cache's shared snapshot by index, makes at most `BATCH_BYTES` of
events at a time (the handler writes a batch and waits for the connection to drain before asking
for the next) and lets go of the snapshot once past its end. So a watch that sends its initial
state holds a position in a list every other watch at that revision shares, plus one batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from svc.registry.watch import WatchEvent
from svc.storage.cached_object import CachedObject

BATCH_BYTES = 32 * 1024
_DECODED_BYTES = 1024
"""What a decoded item (read from the backend, for a resource served without a cache) counts for
in a batch: it carries no encoded size."""


class InitialEvents:
    """The `span` of `items` that `keep` selects, each made an event by `added`, then `last`."""

    def __init__(
        self,
        items: Sequence[Any],
        span: range,
        keep: Callable[[Any], bool],
        added: Callable[[Any], WatchEvent],
        last: list[WatchEvent],
    ) -> None:
        self._items: Sequence[Any] | None = items if span else None
        self._next = span.start
        self._stop = span.stop
        self._keep = keep
        self._added = added
        self._last = last

    @classmethod
    def of(cls, events: list[WatchEvent]) -> InitialEvents:
        """Just these events (an error, say)."""
        return cls((), range(0), bool, WatchEvent, events)

    @property
    def pending(self) -> bool:
        return self._items is not None or bool(self._last)

    def take(self) -> list[WatchEvent]:
        """The next events, about `BATCH_BYTES` of objects (at least one); [] once all were taken."""
        batch: list[WatchEvent] = []
        items = self._items
        if items is not None:
            keep, added = self._keep, self._added
            index, stop, size = self._next, self._stop, 0
            while index < stop and size < BATCH_BYTES:
                item = items[index]
                index += 1
                if keep(item):
                    batch.append(added(item))
                    size += len(item.data) if isinstance(item, CachedObject) else _DECODED_BYTES
            self._next = index
            if index < stop:
                return batch
            self._items = None
        batch.extend(self._last)
        self._last = []
        return batch
