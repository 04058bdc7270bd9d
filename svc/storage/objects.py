"""Object storage over a revisioned backend: codec, resourceVersion, guaranteed update.

This is the layer upstream calls `storage.Interface`. Objects are stored without their
resourceVersion; on the way out it is set from the key's modification revision, so the version a
client sees is exactly the one compare-and-swap checks. `guaranteed_update` re-runs the caller's
transform on the latest state after every lost compare-and-swap, so a patch or a finalizer removal
racing with another writer is applied to what is actually stored, never to a stale copy. A
transform that produces an equal object writes nothing (whatever its key order), so an idempotent
request does not create a revision.

Values pass through the key's value transformer (encryption at rest) between the codec and the
backend. A value the transformer reads as stale (written by a provider other than the first) is
rewritten by an update even when the object is unchanged, so rewriting objects rotates their keys.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from svc.machinery.collector import collector_paused
from svc.storage import errors
from svc.storage.backend import Backend, Event, EventType, KeyValue, prefix_end
from svc.storage.codec import StorageCodec
from svc.storage.encryption.transformer import Transformer, TransformError

Obj = dict[str, Any]
UpdateFunc = Callable[[Obj], Awaitable[Obj | None]]


@dataclass(frozen=True, slots=True)
class ListPage:
    keys: list[str]
    items: list[Obj]
    revision: int
    more: bool
    remaining: int
    last_key: str


@dataclass(frozen=True, slots=True)
class ObjectEvent:
    type: EventType
    key: str
    object: Obj
    revision: int


class KeyTransformers(Protocol):
    def for_key(self, key: str) -> Transformer | None:
        """The transformer of values stored under `key` (None: stored as encoded)."""
        ...


class ObjectStore:
    def __init__(self, backend: Backend, codec: StorageCodec, transformers: KeyTransformers | None = None) -> None:
        self.backend = backend
        self.codec = codec
        self.transformers = transformers

    def decode(self, kv: KeyValue) -> Obj:
        return self._read(kv)[0]

    def _read(self, kv: KeyValue) -> tuple[Obj, bytes, bool]:
        """The stored object, its encoding, and whether its value is stale (see the module's note)."""
        try:
            data, stale = self._from_storage(kv.key, kv.value)
            obj = self.codec.decode(data)
        except ValueError as error:
            raise errors.CorruptObjectError(kv.key, str(error)) from error
        obj.setdefault("metadata", {})["resourceVersion"] = str(kv.mod_revision)
        return obj, data, stale

    def _from_storage(self, key: str, value: bytes) -> tuple[bytes, bool]:
        transformer = self.transformers.for_key(key) if self.transformers is not None else None
        if transformer is None:
            return value, False
        return transformer.from_storage(value, key.encode())

    def _to_storage(self, key: str, value: bytes) -> bytes:
        transformer = self.transformers.for_key(key) if self.transformers is not None else None
        if transformer is None:
            return value
        try:
            return transformer.to_storage(value, key.encode())
        except TransformError as error:
            raise errors.StorageError(str(error)) from error

    def encode(self, obj: Obj) -> bytes:
        metadata = obj.get("metadata") or {}
        version = metadata.pop("resourceVersion", None)
        try:
            return self.codec.encode(obj)
        finally:
            if version is not None:
                metadata["resourceVersion"] = version

    async def get(self, key: str) -> Obj:
        kv = await self.backend.get(key)
        if kv is None:
            raise errors.KeyNotFoundError(key)
        return self.decode(kv)

    async def get_raw(self, key: str) -> KeyValue | None:
        return await self.backend.get(key)

    async def list(self, prefix: str, *, revision: int = 0, limit: int = 0, after_key: str = "") -> ListPage:
        start = after_key + "\x00" if after_key else prefix
        result = await self.backend.range(start, prefix_end(prefix), limit=limit, revision=revision)
        with collector_paused():
            items = [self.decode(kv) for kv in result.kvs]
        last_key = result.kvs[-1].key if result.kvs else ""
        remaining = result.count - len(result.kvs) if result.more else 0
        return ListPage([kv.key for kv in result.kvs], items, result.revision, result.more, remaining, last_key)

    async def create(self, key: str, obj: Obj) -> Obj:
        kv = await self.backend.create(key, self._to_storage(key, self.encode(obj)))
        return self._stored(obj, kv)

    async def guaranteed_update(
        self, key: str, update: UpdateFunc, *, create_missing: bool = False, suggestion: Obj | None = None
    ) -> Obj:
        """Apply `update` to the stored object until the compare-and-swap holds.

        `update` gets a private copy of the current object (with its resourceVersion), or None when
        the key is missing and `create_missing` is set, and returns the new object, or None to leave
        the stored one as is. Errors it raises propagate unchanged. An unchanged object is not
        written and keeps its resourceVersion.

        `suggestion` (the watch cache's copy, as upstream's `cachedExistingObject`) is tried first in
        place of a read, so a write costs one round trip when the cache is current. What was decided
        on it is only trusted through the compare-and-swap: an error `update` raises, or an unchanged
        result, sends for the stored object and runs `update` again unless the suggestion was the
        stored version after all. None from `update` returns the suggestion: the caller's next
        guarded write (a delete) checks it."""
        guess = suggestion
        kv = None if guess is not None else await self.backend.get(key)
        while True:
            if guess is not None:
                current, guess = guess, None
                revision = int(current["metadata"]["resourceVersion"])
                try:
                    updated = await update(self.codec.copy(current))
                except Exception:
                    kv = await self.backend.get(key)
                    if kv is not None and kv.mod_revision == revision:
                        raise
                    continue
                if updated is None:
                    return current
                if updated == current:
                    kv = await self.backend.get(key)
                    continue
                value = self.encode(updated)
            else:
                if kv is None:
                    if not create_missing:
                        raise errors.KeyNotFoundError(key)
                    created = await update(None)
                    if created is None:
                        raise errors.KeyNotFoundError(key)
                    try:
                        return await self.create(key, created)
                    except errors.KeyExistsError:
                        kv = await self.backend.get(key)
                        continue
                current, data, stale = self._read(kv)
                revision = kv.mod_revision
                updated = await update(self.codec.copy(current))
                if updated is None or (updated == current and not stale):
                    return current
                value = self.encode(updated)
                if not stale and self._holds_the_same(value, data):
                    return current
            try:
                new_kv = await self.backend.update(key, self._to_storage(key, value), expected_revision=revision)
            except errors.RevisionConflictError as conflict:
                kv = conflict.current or await self.backend.get(key)
                continue
            except errors.KeyNotFoundError:
                kv = None
                continue
            return self._stored(updated, new_kv)

    def _holds_the_same(self, value: bytes, stored: bytes) -> bool:
        """Whether a new value stores what is already stored. Upstream compares the bytes of its
        deterministic encoding; ours follows each object's key order, so values of equal length are
        decoded and compared. It matters for Protobuf, which holds `data: {}` and no `data` alike."""
        if value == stored:
            return True
        return len(value) == len(stored) and self.codec.decode(value) == self.codec.decode(stored)

    async def delete(
        self, key: str, *, check: Callable[[Obj], Awaitable[None]] | None = None, current: Obj | None = None
    ) -> Obj:
        """Delete the key guarded by the revision of `current` (read when not given); after a lost
        compare-and-swap, `check` sees the object actually stored before the next attempt and may raise."""
        while True:
            if current is None:
                current = await self.get(key)
                if check is not None:
                    await check(current)
            try:
                event = await self.backend.delete(key, expected_revision=int(current["metadata"]["resourceVersion"]))
            except errors.RevisionConflictError as conflict:
                current = self.decode(conflict.current) if conflict.current is not None else None
                if current is not None and check is not None:
                    await check(current)
                continue
            # The compare-and-swap held, so the deleted value is `current`: no need to decode it again.
            # As upstream, it carries the revision of the delete.
            return {**current, "metadata": {**current["metadata"], "resourceVersion": str(event.kv.mod_revision)}}

    async def delete_corrupt(self, key: str, *, dry_run: bool) -> None:
        """Remove a key whose value cannot be decoded; refuse (DecodableObjectError) when it can."""
        while True:
            kv = await self.backend.get(key)
            if kv is None:
                raise errors.KeyNotFoundError(key)
            try:
                self.decode(kv)
            except errors.CorruptObjectError:
                pass
            else:
                raise errors.DecodableObjectError(key)
            if dry_run:
                return
            try:
                await self.backend.delete(key, expected_revision=kv.mod_revision)
            except errors.RevisionConflictError:
                continue
            return

    def object_event(self, event: Event) -> ObjectEvent:
        return ObjectEvent(event.type, event.kv.key, self.decode(event.kv), event.revision)

    def _stored(self, obj: Obj, kv: KeyValue) -> Obj:
        obj.setdefault("metadata", {})["resourceVersion"] = str(kv.mod_revision)
        return obj
