"""What the watch caches held when a snapshot was saved, so restoring it does not decode every object again.

A restore writes the snapshot's rows back with every revision moved by one offset. Reloading the
watch caches from the store would decode each object from its storage encoding (most of a restore's
time: about 30 µs an object in Protobuf). The caches' contents at the snapshot's revision are those
objects already encoded as JSON; the restore reuses them with only their resourceVersion moved by
the same offset, a byte splice where the version occurs once in the JSON (it always occurs in the
metadata) and a JSON round trip otherwise.

An image is only kept for caches that stood exactly at the snapshot's revision when it was taken,
and only used while the snapshot file is the one saved (same inode, size and modification time);
anything else reloads from the store as before.
"""

from __future__ import annotations

import asyncio
import os
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import orjson

from svc.machinery.collector import collector_paused
from svc.storage.cached_object import CachedObject
from svc.storage.watch_cache import WatchCache

_KEPT = 8
_CATCH_UP = 2.0
_VERSION = b'"resourceVersion":"'


@dataclass(frozen=True)
class _Image:
    revision: int
    file: tuple[int, int, int]
    states: dict[str, dict[str, CachedObject]]


def _identity(path: Path) -> tuple[int, int, int]:
    stat = os.stat(path)
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


class SnapshotImages:
    """The images of the snapshots saved by this server, the most recently used few."""

    def __init__(self) -> None:
        self._images: OrderedDict[str, _Image] = OrderedDict()

    async def capture(self, name: str, path: Path, revision: int, caches: Mapping[str, WatchCache]) -> None:
        """Remember the caches' contents as of snapshot `name`, saved at `revision`."""
        self._images.pop(name, None)
        await asyncio.gather(*(cache.wait_for(revision, _CATCH_UP) for cache in caches.values()))
        states = {prefix: dict(cache.state) for prefix, cache in caches.items() if _stands_at(cache, revision)}
        self._images[name] = _Image(revision, _identity(path), states)
        while len(self._images) > _KEPT:
            self._images.popitem(last=False)

    def revision_of(self, name: str, path: Path) -> int | None:
        """The revision snapshot `name` was saved at, if its image is kept and `path` is still that file."""
        image = self._images.get(name)
        if image is None or image.file != _identity(path):
            return None
        self._images.move_to_end(name)
        return image.revision

    def restored(self, name: str, offset: int) -> dict[str, dict[str, CachedObject]]:
        """The state of each cache the image of snapshot `name` covers once the store holds the
        snapshot with every revision moved by `offset` (check `revision_of` first)."""
        image = self._images[name]
        with collector_paused():  # thousands of live objects allocated at once, none cyclic
            return {
                prefix: {key: _moved(cached, offset) for key, cached in state.items()}
                for prefix, state in image.states.items()
            }


def _stands_at(cache: WatchCache, revision: int) -> bool:
    """Whether the cache's state is exactly the store's at `revision`: it has applied it and nothing after."""
    return (
        cache.revision >= revision and not cache.corrupt and not (cache.events and cache.events[-1].revision > revision)
    )


def _moved(cached: CachedObject, offset: int) -> CachedObject:
    data = cached.data
    start = data.find(_VERSION)
    if start >= 0 and data.find(_VERSION, start + 1) < 0:
        start += len(_VERSION)
        end = data.index(b'"', start)
        revision = int(data[start:end]) + offset
        version = str(revision).encode()
        return CachedObject(
            data[:start] + version + data[end:], cached.labels, cached.api_version, cached.kind, revision
        )
    obj = orjson.loads(data)
    metadata = obj["metadata"]
    metadata["resourceVersion"] = str(int(metadata["resourceVersion"]) + offset)
    return CachedObject.of(obj)
