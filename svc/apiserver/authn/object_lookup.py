"""What token checks read on every request: does an object still exist, with which uid.

Upstream reads these from informer caches, never from storage; here the watch caches serve. Each
answer is remembered together with the cached entry it came from, so a later check of an unchanged
object is a dictionary lookup and an identity comparison, not a decode.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from svc.machinery import status
from svc.registry.store import GenericStore

_MEMO_LIMIT = 10_000


@dataclass(frozen=True)
class Identity:
    uid: str
    deletion_timestamp: str | None
    obj: dict[str, Any]


class ObjectLookup:
    def __init__(self, store_for: Callable[[str, str], GenericStore]) -> None:
        self._store_for = store_for
        self._stores: dict[str, GenericStore] = {}
        self._memo: dict[str, tuple[object, Identity]] = {}

    async def identity(self, resource: str, namespace: str, name: str) -> Identity | None:
        """The object of a core `resource`, or None when it does not exist. While the object does not
        change, every call returns the same `Identity` instance (callers may compare with `is`)."""
        store = self._stores.get(resource)
        if store is None:
            store = self._stores[resource] = self._store_for("", resource)
        cache = store.cache
        if cache is None:
            try:
                return _identity(await store.get(namespace, name))
            except status.StatusError as error:
                if error.code == 404:
                    return None
                raise
        key = store.key(namespace, name)
        cached = cache.state.get(key)
        if cached is None:
            return None
        memo = self._memo.get(key)
        if memo is not None and memo[0] is cached:
            return memo[1]
        found = _identity(cached.decode())
        if len(self._memo) >= _MEMO_LIMIT:
            self._memo.clear()
        self._memo[key] = (cached, found)
        return found


def _identity(obj: dict[str, Any]) -> Identity:
    metadata = obj.get("metadata") or {}
    return Identity(str(metadata.get("uid", "")), metadata.get("deletionTimestamp"), obj)
