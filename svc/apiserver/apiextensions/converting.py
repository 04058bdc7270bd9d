"""Custom resources whose CRD converts by webhook: stored in the storage version, served in each.

A `ConvertingObjects` sits between a version's generic store and storage: what the store reads is
converted to the served version (one ConversionReview per read, a list page in one batch), what it
writes is converted to the storage version first, and an update's transform sees the current object
in the served version. The store of such a version has no watch cache (the cache shares decoded
objects of the storage version between versions); its watch stream converts each batch of events
before it is written. Conversion errors are the converter's 500 Status, as upstream answers them.
CRDs with the `None` strategy need none of this: their versions differ only in `apiVersion`, which
the store stamps on every object it serves.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.apiserver.apiextensions.conversion import Converter
from svc.machinery import status
from svc.registry.options import ListOptions
from svc.registry.store import GenericStore
from svc.registry.watch import WatchEvent, WatchStream
from svc.storage.objects import ListPage, ObjectStore, UpdateFunc

Obj = dict[str, Any]
_CONVERTED_EVENTS = frozenset({"ADDED", "MODIFIED", "DELETED"})


class ConvertingObjects(ObjectStore):
    def __init__(self, inner: ObjectStore, converter: Converter, served: str, storage: str) -> None:
        super().__init__(inner.backend, inner.codec, inner.transformers)
        self.converter = converter
        self.served = served
        self.storage = storage

    async def to_served(self, objects: list[Obj]) -> list[Obj]:
        return await self.converter.convert(objects, self.served)

    async def _one(self, obj: Obj, to: str) -> Obj:
        (converted,) = await self.converter.convert([obj], to)
        return converted

    async def get(self, key: str) -> Obj:
        return await self._one(await super().get(key), self.served)

    async def list(self, prefix: str, *, revision: int = 0, limit: int = 0, after_key: str = "") -> ListPage:
        page = await super().list(prefix, revision=revision, limit=limit, after_key=after_key)
        return dataclasses.replace(page, items=await self.to_served(page.items))

    async def create(self, key: str, obj: Obj) -> Obj:
        stored = await super().create(key, await self._one(obj, self.storage))
        return await self._one(stored, self.served)

    async def guaranteed_update(
        self, key: str, update: UpdateFunc, *, create_missing: bool = False, suggestion: Obj | None = None
    ) -> Obj:
        """`suggestion` is the watch cache's copy, in the storage version as the store holds it."""

        async def converted(current: Obj | None) -> Obj | None:
            if current is not None:
                current = await self._one(current, self.served)
            result = await update(current)
            return None if result is None else await self._one(result, self.storage)

        stored = await super().guaranteed_update(key, converted, create_missing=create_missing, suggestion=suggestion)
        return await self._one(stored, self.served)


class ConvertedWatch:
    """A watch stream whose events carry objects converted to the served version."""

    shared_as = None

    def __init__(self, inner: WatchStream, objects: ConvertingObjects) -> None:
        self._inner = inner
        self._objects = objects

    @property
    def progress(self) -> int | None:
        return self._inner.progress

    @property
    def pending_bytes(self) -> int:
        return self._inner.pending_bytes

    def push(self, sink: Any) -> bool:
        return False

    def fail(self, reason: str) -> None:
        self._inner.fail(reason)

    async def close(self) -> None:
        await self._inner.close()

    async def next_batch(self, wait_seconds: float) -> list[WatchEvent] | None:
        batch = await self._inner.next_batch(wait_seconds)
        if not batch:
            return batch
        chosen = [index for index, event in enumerate(batch) if event.type in _CONVERTED_EVENTS]
        # Stored objects keep the version they are stored in until converted here.
        raw = [batch[index].cached.decode() if batch[index].cached else batch[index].object for index in chosen]
        try:
            converted = await self._objects.to_served(raw)
        except status.StatusError as error:
            await self._inner.close()
            return [WatchEvent("ERROR", decoded=error.status())]
        result = list(batch)
        for index, obj in zip(chosen, converted, strict=True):
            result[index] = WatchEvent(batch[index].type, decoded=obj)
        return result


class ConvertingStore(GenericStore):
    """The generic store of one served version of a webhook-converted CRD."""

    async def watch(self, namespace: str, options: ListOptions, *, initial: bool | None = None) -> Any:
        stream = await super().watch(namespace, options, initial=initial)
        assert isinstance(self.objects, ConvertingObjects)
        return ConvertedWatch(stream, self.objects)

    def present(self, obj: Obj) -> Obj:
        """Objects arrive converted; a stored one keeps its version until converted."""
        return obj
