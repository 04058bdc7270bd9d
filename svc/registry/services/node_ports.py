"""Node ports, allocated as upstream does: one bitmap of the whole range (a RangeAllocation) in storage.

Every allocation is a compare-and-swap of that one value, so concurrent creates (on one API server or
several) never hand out a port twice, and allocations outlive a restart. A random port comes from the
upper part of the range first, leaving the first min(max(16, size/32), 128) ports for ports that clients
ask for by number, as upstream's allocator does. Bit i of the bitmap is the range's i-th port; the bytes
are the big-endian form of that number, as upstream's `big.Int` writes it.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable
from typing import Any

from svc.registry.services.cluster_ips import AllocationError
from svc.storage import errors
from svc.storage.objects import ObjectStore

Obj = dict[str, Any]


class NodePorts:
    def __init__(self, ports: range, objects: ObjectStore, key: str) -> None:
        self.ports = ports
        self._objects = objects
        self._key = key
        size = len(ports)
        self._reserved = min(max(16, size // 32), 128) if size > 32 else 0

    @property
    def range_text(self) -> str:
        return f"{self.ports.start}-{self.ports.stop - 1}"

    def _bits(self, current: Obj | None) -> int:
        data = (current or {}).get("data") or ""
        return int.from_bytes(base64.b64decode(data), "big") if data else 0

    def _value(self, bits: int) -> Obj:
        data = bits.to_bytes((bits.bit_length() + 7) // 8, "big")
        return {
            "apiVersion": "v1",
            "kind": "RangeAllocation",
            "metadata": {},
            "range": self.range_text,
            "data": base64.b64encode(data).decode(),
        }

    def _held(self, current: Obj | None) -> set[int]:
        """The ports a stored allocation holds, read against the range it was written for."""
        first = ((current or {}).get("range") or "").partition("-")[0]
        start = int(first) if first.isdigit() else self.ports.start
        bits = self._bits(current)
        return {start + offset for offset in range(bits.bit_length()) if bits >> offset & 1}

    async def replace(self, rebuild: Callable[[set[int]], set[int]]) -> None:
        """Store what `rebuild` makes of the stored ports (the repair loop's write: one compare-and-swap,
        so `rebuild` runs again on the new value if an allocation raced it); ports outside the range
        are not stored."""

        async def swap(current: Obj | None) -> Obj:
            bits = 0
            for port in rebuild(self._held(current)):
                if port in self.ports:
                    bits |= 1 << (port - self.ports.start)
            return self._value(bits)

        await self._objects.guaranteed_update(self._key, swap, create_missing=True)

    def _pick(self, bits: int) -> int:
        size = len(self.ports)
        for low, high in ((self._reserved, size - 1), (0, self._reserved - 1)):
            if low > high:
                continue
            for _ in range(32):
                offset = random.randint(low, high)
                if not bits >> offset & 1:
                    return offset
            for offset in range(low, high + 1):
                if not bits >> offset & 1:
                    return offset
        raise AllocationError("range is full")

    async def allocate(self, requested: int, *, dry_run: bool) -> int:
        """`requested` (0: any free port), now held unless a dry run."""
        if requested and requested not in self.ports:
            raise AllocationError(
                f"provided port is not in the valid range. The range of valid ports is {self.range_text}"
            )
        chosen: dict[str, int] = {}

        async def take(current: Obj | None) -> Obj | None:
            bits = self._bits(current)
            if requested:
                offset = requested - self.ports.start
                if bits >> offset & 1:
                    raise AllocationError("provided port is already allocated")
            else:
                offset = self._pick(bits)
            chosen["port"] = self.ports.start + offset
            return None if dry_run else self._value(bits | 1 << offset)

        try:
            await self._objects.guaranteed_update(self._key, take, create_missing=True)
        except errors.KeyNotFoundError:
            if not dry_run:
                raise
        return chosen["port"]

    async def release(self, ports: list[int]) -> None:
        held = [port for port in ports if port in self.ports]
        if not held:
            return

        async def give_back(current: Obj | None) -> Obj | None:
            bits = self._bits(current)
            for port in held:
                bits &= ~(1 << (port - self.ports.start))
            return self._value(bits)

        try:
            await self._objects.guaranteed_update(self._key, give_back)
        except errors.KeyNotFoundError:
            return
