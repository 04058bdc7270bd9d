"""`--max-connection-bytes-per-sec`: the byte rate of each direction of an upgraded connection
(exec, attach), as upstream's upgrade-aware proxy throttles the streams it relays.

A token bucket holding one second's worth of bytes: a frame waits until the bucket has refilled
enough for it (a frame larger than the bucket waits for its whole size at the configured rate).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class ByteRate:
    def __init__(self, bytes_per_second: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = bytes_per_second
        self._clock = clock
        self._available = float(bytes_per_second)
        self._updated = clock()

    def delay_for(self, size: int) -> float:
        """Take `size` bytes from the bucket; the seconds to wait before sending them."""
        now = self._clock()
        self._available = min(float(self.rate), self._available + (now - self._updated) * self.rate)
        self._updated = now
        self._available -= size
        return max(0.0, -self._available / self.rate)

    async def take(self, size: int) -> None:
        delay = self.delay_for(size)
        if delay:
            await asyncio.sleep(delay)
