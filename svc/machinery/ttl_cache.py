"""A bounded cache of answers that expire: what the token and authorization webhooks and the JWT
success cache keep, each with its own time-to-live (upstream's `cache.LRUExpireCache`). Ages are
read on the server's clock, so under `--clock=fake` entries expire when a test advances it."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from svc.machinery import wallclock

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TTLCache(Generic[K, V]):
    """Entries live `ttl` seconds from when they were stored; beyond `size`, the oldest go first."""

    def __init__(self, size: int, clock: Callable[[], float] = wallclock.monotonic) -> None:
        self._size = size
        self._clock = clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def get(self, key: K) -> tuple[bool, V | None]:
        """(found, value); an expired entry is not found."""
        entry = self._entries.get(key)
        if entry is None or entry[0] <= self._clock():
            return False, None
        return True, entry[1]

    def put(self, key: K, value: V, ttl: float) -> None:
        if ttl <= 0:
            return
        self._entries[key] = (self._clock() + ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)
