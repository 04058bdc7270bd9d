"""Restoring a snapshot under a running server: the store, then every watch cache, as fast as it goes.

The order is what makes it fast and safe:
1. halt every watch cache, so none sees its store watch end and relists on its own (each would then
   be reloaded a second time);
2. hand the restore to the store's writer thread and, while SQLite copies pages there, prepare the
   caches' new states from the image kept at save (`snapshot_images`) on this thread;
3. install those states (or reload from the store where there is no image), which ends every open
   watch with 410 Gone so informers relist.

Step 2 needs the offset the store moves the snapshot's revisions by before the store says what it
was: it is predicted with the store's rule (past both the current revision and the snapshot's) and
checked against the outcome, and the states are prepared again when the two differ (a write landed
in between). A restore the store refuses (not a snapshot) leaves the caches as they were.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from svc.apiserver.snapshot_images import SnapshotImages
from svc.storage.sqlite.backend import SqliteBackend
from svc.storage.watch_cache import WatchCache


@dataclass(frozen=True)
class Restored:
    revision: int
    storage_seconds: float


async def restore_snapshot(
    backend: SqliteBackend, caches: Mapping[str, WatchCache], images: SnapshotImages, name: str, path: Path
) -> Restored:
    """Replace the store with snapshot `name` at `path` and reload the caches; raises ValueError
    (nothing changed) when the file is not a snapshot of this store."""
    started = time.perf_counter()
    saved_at = images.revision_of(name, path)
    predicted = max(await backend.current_revision(), saved_at or 0)
    for cache in caches.values():
        cache.halt()
    restoring = asyncio.ensure_future(backend.restore_snapshot(path))
    stored: list[float] = []
    restoring.add_done_callback(lambda _: stored.append(time.perf_counter()))
    await asyncio.sleep(0)  # let the restore reach the writer thread before preparing on this one
    states = images.restored(name, predicted) if saved_at is not None else {}
    try:
        revision = await restoring
    except ValueError:
        await asyncio.gather(*(cache.resume() for cache in caches.values()))
        raise
    except BaseException:
        await asyncio.gather(*(cache.reload() for cache in caches.values()))
        raise
    if saved_at is not None and revision - saved_at != predicted:
        states = images.restored(name, revision - saved_at)
    await asyncio.gather(*(cache.reload(states.get(prefix), revision) for prefix, cache in caches.items()))
    return Restored(revision, stored[0] - started)
