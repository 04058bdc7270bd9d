"""The `Retry-After` of a rejected request, per priority level (upstream's dropped-requests tracker).

It starts at 1 s. When a level kept rejecting (at least 3 x the current value in the last that
many seconds, and no raise for that long), it doubles, up to 32 s; when rejections become rare
(fewer than the current value in that window) it drops by one, as TCP's congestion window moves.
"""

from __future__ import annotations

import time
from collections.abc import Callable

MAX_RETRY_AFTER = 32


class _LevelDrops:
    def __init__(self) -> None:
        self.history: list[tuple[int, int]] = []  # (second, rejections) of past seconds
        self.current_second = 0
        self.current_count = 0
        self.retry_after = 1
        self.raised_at = 0

    def record(self, second: int) -> None:
        if second == self.current_second:
            self.current_count += 1
            return
        self.history.append((self.current_second, self.current_count))
        keep = min(2 * self.retry_after, MAX_RETRY_AFTER)
        self.history = [(at, count) for at, count in self.history if second - at <= keep]
        self.current_second, self.current_count = second, 1
        self._update(second)

    def _update(self, second: int) -> None:
        window = self.retry_after
        dropped = sum(count for at, count in self.history if second - at <= window and at < second)
        if second - self.raised_at >= window and dropped >= 3 * window:
            self.retry_after = min(2 * window, MAX_RETRY_AFTER)
            self.raised_at = second
        elif dropped < window and window > 1:
            self.retry_after = window - 1


class RetryAfter:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._levels: dict[str, _LevelDrops] = {}

    def record(self, level: str) -> None:
        self._levels.setdefault(level, _LevelDrops()).record(int(self._clock()))

    def seconds(self, level: str) -> int:
        drops = self._levels.get(level)
        return drops.retry_after if drops is not None else 1
