"""A bound on connections that have not yet sent complete request headers.

Policy: at most `limit` connections may be waiting for their headers at once; when one more
arrives, the connection that has waited longest is closed. A client that sends its headers in one
go leaves this set within milliseconds, so under a flood of slow connections (slowloris) the ones
shed are the flood's oldest, while fresh clients get their turn. Refusing newcomers instead would
hand the flood the server until its deadline expired. Together with the header deadline this caps
what slow connections cost: at most `limit` of them, each for at most the deadline.

A connection counts from the end of its TLS handshake (when aiohttp's protocol sees it). Handshakes
still in progress are bounded by the same deadline (`ssl_handshake_timeout`) but not by this count.
"""

from __future__ import annotations

from typing import Protocol


class Sheddable(Protocol):
    def shed(self) -> None:
        """Close the connection without answering."""


class PendingConnections:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._waiting: dict[Sheddable, None] = {}

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, connection: Sheddable) -> None:
        """Start waiting for `connection`'s headers, shedding the longest waiters past the limit."""
        self._waiting[connection] = None
        while len(self._waiting) > self.limit:
            oldest = next(iter(self._waiting))
            del self._waiting[oldest]
            oldest.shed()

    def discard(self, connection: Sheddable) -> None:
        self._waiting.pop(connection, None)
