"""Background loops of the API server: store compaction.

Each loop takes its timing from arguments (and `sleep` can be replaced), so tests drive them
deterministically. Removing a deleted namespace's content and collecting garbage are the controller
daemon's jobs (svc/controllers), as upstream's, not the API server's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from svc.storage import errors
from svc.storage.backends import is_etcd

if TYPE_CHECKING:
    from svc.apiserver.server import Server
    from svc.storage.etcd.backend import EtcdBackend

log = logging.getLogger(__name__)
Sleep = Callable[[float], Awaitable[None]]


async def storage_size_loop(server: Server, *, sleep: Sleep = asyncio.sleep) -> None:
    """apiserver_storage_size_bytes, polled every `--store-db-metric-poll-interval`, one series per
    store (etcd names its cluster; the embedded store is "sqlite")."""
    interval = server.options.etcd.db_metric_poll_interval
    if interval <= 0 or server.backends is None:
        return
    while True:
        for backend in server.backends.all():
            try:
                cluster, size = await backend.storage_size()
            except errors.StorageError as error:
                log.debug("storage size poll failed: %s", error)
                continue
            server.metrics.child(server.metrics.storage_size, (cluster,)).set(size)
        await sleep(interval)


async def compaction_loop(server: Server, *, sleep: Sleep = asyncio.sleep) -> None:
    """Compact to the revision seen one interval ago, so history always spans at least one interval.
    On etcd, every store (the default and each override) is compacted in turns with the other API
    servers sharing it (`EtcdBackend.compact_in_turn`)."""
    interval = server.options.store_compaction_interval
    if interval <= 0 or server.backend is None or server.backends is None:
        return
    etcd = [backend for backend in server.backends.all() if is_etcd(backend)]
    if etcd:
        await asyncio.gather(*(_compact_in_turns(backend, interval, sleep) for backend in etcd))
        return
    backend = server.backend
    previous = 0
    while True:
        await sleep(interval)
        current = await backend.current_revision()
        if previous and previous > await backend.compacted_revision():
            try:
                await backend.compact(previous)
            except errors.StorageError as error:
                log.warning("compaction to %d failed: %s", previous, error)
        previous = current


async def _compact_in_turns(backend: EtcdBackend, interval: float, sleep: Sleep) -> None:
    round_, revision = 0, 0
    while True:
        await sleep(interval)
        try:
            round_, revision = await backend.compact_in_turn(round_, revision)
        except errors.StorageError as error:
            log.warning("etcd compaction failed: %s", error)
