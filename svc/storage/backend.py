"""The revisioned key-value interface every storage backend implements (etcd's model).

One global revision counts every mutation. Each key carries the revision that created it and the one
that last modified it; writes are guarded by compare-and-swap on the modification revision; ranges
can be read at an older revision until it is compacted; a watch replays every change after a
revision, in order. The SQLite backend and the etcd backend both speak exactly this, so everything
above the backend (object codec, watch cache, registry) is shared.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class KeyValue:
    key: str
    value: bytes
    create_revision: int
    mod_revision: int


class EventType(enum.Enum):
    PUT = "PUT"
    DELETE = "DELETE"


@dataclass(frozen=True, slots=True)
class Event:
    """One change. For PUT `kv` is the new value; for DELETE `kv.mod_revision` is the deletion's
    revision and `kv.value` the last value before it. `prev` is the value before the change."""

    type: EventType
    kv: KeyValue
    prev: KeyValue | None

    @property
    def revision(self) -> int:
        return self.kv.mod_revision


@dataclass(frozen=True, slots=True)
class Progress:
    """Nothing changed under the watched prefix up to `revision` (etcd's progress notification).

    Lets a watcher of a quiet prefix (a watch cache) know how current it is."""

    revision: int


@dataclass(frozen=True, slots=True)
class RangeResult:
    kvs: list[KeyValue]
    revision: int
    more: bool
    count: int


class Backend(Protocol):
    progress_on_demand: bool
    """Whether `request_progress` makes a progress-notifying watch report the current revision as soon
    as it has sent the events before it (a watch cache then serves consistent reads)."""

    in_process: bool
    """Whether the store lives in this process, so its current revision costs no round trip: a watch
    cache caught up with it answers a consistent GET with what a read would return, for less. A remote
    store (etcd) is read instead, as upstream reads GETs without a resourceVersion."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def current_revision(self) -> int: ...

    async def get(self, key: str) -> KeyValue | None: ...

    async def range(self, start: str, end: str, *, limit: int = 0, revision: int = 0) -> RangeResult:
        """Keys in [start, end), at `revision` (0: current). Raises CompactedError/FutureRevisionError."""
        ...

    async def create(self, key: str, value: bytes) -> KeyValue:
        """Raises KeyExistsError when the key is live."""
        ...

    async def update(self, key: str, value: bytes, *, expected_revision: int) -> KeyValue:
        """Raises KeyNotFoundError, or RevisionConflictError when the mod revision differs."""
        ...

    async def delete(self, key: str, *, expected_revision: int) -> Event:
        """Raises KeyNotFoundError, or RevisionConflictError when the mod revision differs."""
        ...

    def watch(
        self, prefix: str, *, after_revision: int, progress_notify: bool = False
    ) -> AsyncIterator[Event | Progress]:
        """Every change under `prefix` after `after_revision`, in revision order, then live changes;
        with `progress_notify`, also `Progress` marks as the global revision advances. Raises
        CompactedError (on first iteration) when that history is gone."""
        ...

    def request_progress(self, prefix: str, revision: int) -> None:
        """Ask the progress-notifying watches of `prefix` that are behind `revision` to report the
        current revision (a `Progress`); a reader of their cache waits for it."""
        ...

    async def compact(self, revision: int) -> None: ...

    async def compacted_revision(self) -> int: ...

    async def storage_size(self) -> tuple[str, int]:
        """The store's cluster identity and the bytes its database takes on disk."""
        ...

    async def check_writes(self) -> None:
        """Raises BackendUnavailableError while writes fail (a full disk), so readiness can say so."""
        ...


def prefix_end(prefix: str) -> str:
    """The smallest key greater than every key that starts with `prefix` (etcd's range end)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


async def range_pages(backend: Backend, prefix: str, page: int = 5000) -> AsyncIterator[RangeResult]:
    """Every key under `prefix`, a page at a time and all at the revision of the first page, so that a
    large store is read without holding all of its values at once."""
    start, end, revision = prefix, prefix_end(prefix), 0
    while True:
        result = await backend.range(start, end, limit=page, revision=revision)
        revision = result.revision
        yield result
        if not result.more or not result.kvs:
            return
        start = result.kvs[-1].key + "\x00"
