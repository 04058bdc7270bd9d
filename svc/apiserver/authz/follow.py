"""Keep an in-server index current: list each resource it reads, then apply its watch events.

RBAC's policy index, the Node authorizer's graph and the Service repair loop's view of Services and
IPAddresses are indexes of this kind: `reset` with a full list, then `put` and `remove` per event.

The store serves the list and the watch from its watch cache (or from storage when the cache is off),
so a change reaches the index one cache flush after it is stored. A watch that ends or fails (the
window expired, storage restarted) is answered by listing again, as an informer does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Protocol

from svc.machinery import status
from svc.registry.options import ListOptions
from svc.registry.store import GenericStore
from svc.storage import errors

log = logging.getLogger(__name__)

_RETRY_SECONDS = 0.5
_WAIT_SECONDS = 5.0


class Index(Protocol):
    def reset(self, resource: str, objs: list[dict[str, Any]]) -> None: ...

    def put(self, resource: str, obj: dict[str, Any]) -> None: ...

    def remove(self, resource: str, obj: dict[str, Any]) -> None: ...


async def list_into(index: Index, store: GenericStore) -> str:
    """Fill the index with the resource's current objects; the resourceVersion they were read at."""
    listed = await store.list("", ListOptions())
    index.reset(store.resource.name, listed["items"])
    return listed["metadata"]["resourceVersion"]


async def follow(index: Index, store: GenericStore, version: str) -> None:
    """Apply the resource's changes after `version` to the index, forever."""
    resource = store.resource.name
    while True:
        try:
            stream = await store.watch("", ListOptions(resource_version=version), initial=False)
            try:
                while (batch := await stream.next_batch(_WAIT_SECONDS)) is not None:
                    if any(event.type == "ERROR" for event in batch):
                        break
                    for event in batch:
                        if event.type == "DELETED":
                            index.remove(resource, event.object)
                        else:
                            index.put(resource, event.object)
                        version = event.object["metadata"]["resourceVersion"]
            finally:
                await stream.close()
            version = await list_into(index, store)
        except asyncio.CancelledError:
            raise
        except (status.StatusError, errors.StorageError) as error:
            log.warning("index of %s relisting after: %s", resource, error)
            version = await _relist(index, store)
        except Exception:  # a stale index would grant or refuse wrongly: log, relist, carry on
            log.exception("index of %s failed; relisting", resource)
            version = await _relist(index, store)


async def _relist(index: Index, store: GenericStore) -> str:
    """List again after a pause, until a list succeeds."""
    while True:
        await asyncio.sleep(_RETRY_SECONDS)
        try:
            return await list_into(index, store)
        except (status.StatusError, errors.StorageError) as error:
            log.warning("index of %s cannot list yet: %s", store.resource.name, error)


class Followers:
    """The tasks keeping indexes current, started one per resource and stopped together."""

    def __init__(self) -> None:
        self._tasks: list[asyncio.Task[None]] = []

    async def add(self, index: Index, *stores: GenericStore) -> None:
        """Fill the index with each resource now, then follow their changes in the background. The
        lists run concurrently: on etcd a consistent list may wait for its cache's watch to catch up,
        which etcd does every 100 ms."""
        versions = await asyncio.gather(*(list_into(index, store) for store in stores))
        for store, version in zip(stores, versions, strict=True):
            name = f"index {store.resource.name}"
            self._tasks.append(asyncio.create_task(follow(index, store, version), name=name))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
