"""`--event-ttl`: Events disappear from the store a TTL after their last write.

Upstream attaches an etcd lease of the TTL to every Event write, and etcd deletes the key when the
lease runs out (no finalizers, no admission: the key just goes, and watchers see DELETED). Our
stores have no leases, so the server keeps the schedule: it follows the store's own watch of the
Events prefix (so writes of every API server on the same etcd are seen) and deletes each key
`ttl` after its last write, guarded by that write's revision, so an Event written again since is
left for its new deadline. Events found at start get a full TTL from then: the write times of a
previous run are not stored, and an Event never goes early, only possibly late.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
from collections.abc import Callable

from svc.machinery import wallclock
from svc.storage import errors
from svc.storage.backend import Backend, EventType, Progress, prefix_end

log = logging.getLogger(__name__)

_PAGE = 1000


class EventExpiry:
    def __init__(
        self, backend: Backend, prefix: str, ttl: float, *, clock: Callable[[], float] = wallclock.monotonic
    ) -> None:
        self.backend = backend
        self.prefix = prefix
        self.ttl = ttl
        self.clock = clock
        self.expired = 0
        self._written: dict[str, int] = {}  # key -> revision of its last write
        self._deadlines: list[tuple[float, str, int]] = []
        self._changed = asyncio.Event()

    def _schedule(self, key: str, revision: int) -> None:
        """The TTL is the same for every write, so a new deadline is the latest: the expiring loop
        needs waking only when it had none to wait for."""
        self._written[key] = revision
        if not self._deadlines:
            self._changed.set()
        heapq.heappush(self._deadlines, (self.clock() + self.ttl, key, revision))

    async def run(self) -> None:
        """Follow the Events and delete the expired ones, until cancelled."""
        revision = await self._load()
        follower = asyncio.create_task(self._follow(revision), name="event-ttl-follow")
        try:
            await self._expire()
        finally:
            follower.cancel()

    async def _load(self) -> int:
        start, end, revision = self.prefix, prefix_end(self.prefix), 0
        while True:
            page = await self.backend.range(start, end, limit=_PAGE, revision=revision)
            revision = page.revision
            for kv in page.kvs:
                self._schedule(kv.key, kv.mod_revision)
            if not page.more or not page.kvs:
                return revision
            start = page.kvs[-1].key + "\x00"

    async def _follow(self, after: int) -> None:
        while True:
            try:
                async for event in self.backend.watch(self.prefix, after_revision=after):
                    if isinstance(event, Progress):
                        continue
                    after = event.revision
                    if event.type is EventType.DELETE:
                        self._written.pop(event.kv.key, None)
                    else:
                        self._schedule(event.kv.key, event.kv.mod_revision)
            except errors.CompactedError:
                after = await self._reload()
            except errors.StorageError as error:
                log.debug("event expiry: the watch of %s failed (%s); following again", self.prefix, error)
                await wallclock.sleep(1.0)

    async def _reload(self) -> int:
        self._written.clear()
        self._deadlines.clear()
        return await self._load()

    async def _expire(self) -> None:
        while True:
            self._changed.clear()
            now = self.clock()
            while self._deadlines and self._deadlines[0][0] <= now:
                _, key, revision = heapq.heappop(self._deadlines)
                if self._written.get(key) == revision:
                    await self._delete(key, revision)
            wait = self._deadlines[0][0] - now if self._deadlines else None
            if wait is None:
                await self._changed.wait()
                continue
            try:
                async with wallclock.timeout(wait):
                    await self._changed.wait()
            except TimeoutError:
                pass

    async def _delete(self, key: str, revision: int) -> None:
        try:
            await self.backend.delete(key, expected_revision=revision)
        except (errors.KeyNotFoundError, errors.RevisionConflictError):
            return  # deleted or written again meanwhile: the watch reports it
        except errors.StorageError as error:
            log.warning("event expiry: could not delete %s: %s", key, error)
            return
        self._written.pop(key, None)
        self.expired += 1
