"""The simulated kubelet's `portForward` over SPDY/3.1 (`portforward.k8s.io`), as kubectl uses it.

Per forwarded connection the client opens two streams sharing a `requestID`: `streamType: error`
and `streamType: data`, both naming the `port`. Each stream is accepted with a SYN_REPLY; once both
are there the port is joined to what the pod's `simulator.svc.io/ports` maps it to (or the echo),
the data stream carries the bytes both ways, and a FIN on it half-closes the connection. A PING is
answered with itself, as SPDY requires.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from svc.machinery import spdy
from svc.nodes.port_forward import port_targets

_CHUNK = 32 * 1024


class _Forward:
    """One forwarded connection: its two streams and, once dialled, the container side."""

    def __init__(self) -> None:
        self.streams: dict[str, int] = {}
        self.port = 0
        self.writer: Any = None
        self.pending: list[bytes | None] = []  # data (None: FIN) that arrived before the dial finished


class SpdyPortForward:
    def __init__(self, pod: dict[str, Any], reader: asyncio.StreamReader, write: Callable[[bytes], None]) -> None:
        self.targets = port_targets(pod)
        self.name = pod["metadata"]["name"]
        self.session = spdy.ServerSession(reader, write, self._stream, self._data)
        self.forwards: dict[str, _Forward] = {}
        self.by_data_stream: dict[int, _Forward] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    async def serve(self) -> None:
        try:
            await self.session.run()
        finally:
            for task in self.tasks:
                task.cancel()
            for forward in self.forwards.values():
                if forward.writer is not None:
                    forward.writer.close()

    def _stream(self, stream_id: int, headers: dict[str, str]) -> None:
        forward = self.forwards.setdefault(headers.get("requestid", ""), _Forward())
        forward.streams[headers.get("streamtype", "")] = stream_id
        forward.port = int(headers["port"]) if headers.get("port", "").isdigit() else 0
        if headers.get("streamtype") == "data":
            self.by_data_stream[stream_id] = forward
        if {"data", "error"} <= forward.streams.keys():
            task = asyncio.create_task(self._run(forward))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    def _data(self, stream_id: int, data: bytes, fin: bool) -> None:
        forward = self.by_data_stream.get(stream_id)
        if forward is None:
            return
        chunks: list[bytes | None] = [data] if data else []
        if fin:
            chunks.append(None)
        if forward.writer is None:
            forward.pending.extend(chunks)
            return
        for chunk in chunks:
            self._deliver(forward, chunk)

    def _deliver(self, forward: _Forward, chunk: bytes | None) -> None:
        with contextlib.suppress(OSError):
            if chunk is None:
                if forward.writer.can_write_eof():
                    forward.writer.write_eof()
            else:
                forward.writer.write(chunk)

    async def _run(self, forward: _Forward) -> None:
        data, error = forward.streams["data"], forward.streams["error"]
        target = self.targets.get(forward.port)
        try:
            if target is None:
                reader, forward.writer = _echo()
            else:
                reader, forward.writer = await asyncio.open_connection(*target)
        except OSError as failure:
            message = f"error forwarding port {forward.port} to pod {self.name}: failed to connect: {failure}"
            self.session.send(error, message.encode(), fin=True)
            self.session.send(data, b"", fin=True)
            return
        for chunk in forward.pending:
            self._deliver(forward, chunk)
        forward.pending.clear()
        with contextlib.suppress(OSError):
            while chunk := await reader.read(_CHUNK):
                self.session.send(data, chunk)
        self.session.send(data, b"", fin=True)
        self.session.send(error, b"", fin=True)


def _echo() -> tuple[asyncio.StreamReader, Any]:
    """A container side that writes back what it is sent."""
    reader = asyncio.StreamReader()

    class _Writer:
        def write(self, data: bytes) -> None:
            reader.feed_data(data)

        def write_eof(self) -> None:
            reader.feed_eof()

        def can_write_eof(self) -> bool:
            return True

        def close(self) -> None:
            if not reader.at_eof():
                reader.feed_eof()

    return reader, _Writer()
