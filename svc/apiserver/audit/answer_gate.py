"""HTTP/1.1 answers that wait for the audit log's write, so the log writes once a loop turn.

Upstream's blocking log backend writes each event before its request goes on, so no answer leaves
before its events are on file. Written once per request, that write was most of what auditing
costs a GET (measured at 32 clients: ~15 µs of ~25 µs, half of it kernel time). Instead, while
audit lines wait for the turn's write, the bytes an HTTP/1.1 connection sends wait with them: the
log writes all of the turn's lines with one system call, then lets the held bytes go, in the order
they were sent. A connection's close waits behind what it sent before. HTTP/2 streams are not held:
the log writes their request's lines before they answer (`LogBackend.complete`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

_PASSED = (
    "abort",
    "can_write_eof",
    "get_extra_info",
    "get_protocol",
    "get_write_buffer_limits",
    "get_write_buffer_size",
    "is_closing",
    "is_reading",
    "pause_reading",
    "resume_reading",
    "set_protocol",
    "set_write_buffer_limits",
    "write_eof",
)
"""The transport's own methods, bound once per connection (a request calls several)."""


HELD_BYTES = 1 << 20
"""Held bytes past which the log writes at once: a large answer written in one go (never pausing for
the connection's buffer while it is held) must not sit whole in memory a second time."""


class AnswerGate:
    """The bytes held until the audit log's next write; `waiting` tells whether lines wait for it,
    `flush` writes them now (and releases what was held)."""

    __slots__ = ("flush", "held", "held_bytes", "waiting")

    def __init__(self, waiting: Callable[[], bool], flush: Callable[[], None]) -> None:
        self.waiting = waiting
        self.flush = flush
        self.held: list[tuple[asyncio.Transport, bytes | None]] = []
        """(transport, bytes to write), or (transport, None) for a close, in the order they came."""
        self.held_bytes = 0

    def wrap(self, transport: asyncio.Transport) -> GatedTransport:
        return GatedTransport(transport, self)

    def release(self) -> None:
        """Send what was held (the log has just written the lines it waited for)."""
        held, self.held = self.held, []
        self.held_bytes = 0
        for transport, data in held:
            if data is None:
                transport.close()
            elif not transport.is_closing():
                transport.write(data)


class GatedTransport:
    """A connection's transport whose writes and close wait while the gate holds anything or audit
    lines wait for the log's write; every other method is the transport's own."""

    __slots__ = ("_gate", "_real", *_PASSED)

    def __init__(self, real: asyncio.Transport, gate: AnswerGate) -> None:
        self._real = real
        self._gate = gate
        for name in _PASSED:
            setattr(self, name, getattr(real, name))

    def write(self, data: Any) -> None:
        gate = self._gate
        if gate.held or gate.waiting():
            gate.held.append((self._real, bytes(data)))
            gate.held_bytes += len(data)
            if gate.held_bytes > HELD_BYTES:
                gate.flush()
        else:
            self._real.write(data)

    def writelines(self, chunks: Iterable[Any]) -> None:
        self.write(b"".join(chunks))

    def close(self) -> None:
        gate = self._gate
        if gate.held:
            gate.held.append((self._real, None))
        else:
            self._real.close()
