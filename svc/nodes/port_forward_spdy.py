"""The simulated kubelet's `portForward` over SPDY/3.1 (`portforward.k8s.io`), as kubectl uses it.

Per forwarded connection the client opens two streams sharing a `requestID`: `streamType: error`
and `streamType: data`, both naming the `port`. Each stream is accepted with a SYN_REPLY; once both
are there the port is joined to what the pod's `simulator.svc.io/ports` maps it to (or the echo),
the data stream carries the bytes both ways, and a FIN on it half-closes the connection. A PING is
answered with itself, as SPDY requires. Data goes no faster than either side takes it: the session
hands the client's bytes over only as the container side drains them, and the container's bytes are
read only as the session gets them out (see `svc.machinery.spdy` on flow control).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol

from svc.machinery import spdy
from svc.nodes.port_forward import port_targets

_CHUNK = 32 * 1024


class _Container(Protocol):
    """The container side of one forwarded connection."""

    async def read(self) -> bytes: ...

    async def write(self, data: bytes | None) -> None:
        """Send `data`, or half-close on None; returns once the side has taken it."""

    def close(self) -> None: ...


class _Dialled:
    """A real connection to the address a port is mapped to."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def read(self) -> bytes:
        return await self.reader.read(_CHUNK)

    async def write(self, data: bytes | None) -> None:
        if data is None:
            if self.writer.can_write_eof():
                self.writer.write_eof()
            return
        self.writer.write(data)
        await self.writer.drain()

    def close(self) -> None:
        self.writer.close()


class _Echo:
    """A container side that writes back what it is sent, holding a few chunks at most."""

    def __init__(self) -> None:
        self.chunks: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=4)

    async def read(self) -> bytes:
        return await self.chunks.get() or b""

    async def write(self, data: bytes | None) -> None:
        await self.chunks.put(data)

    def close(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.chunks.put_nowait(None)


class _Forward:
    """One forwarded connection: its two streams and, once dialled, the container side."""

    def __init__(self) -> None:
        self.streams: dict[str, int] = {}
        self.port = 0
        self.container: _Container | None = None
        self.dialled = asyncio.Event()
        """Set once the dial is over, whether it succeeded or not."""


class SpdyPortForward:
    def __init__(self, pod: dict[str, Any], reader: asyncio.StreamReader, out: spdy.Outgoing) -> None:
        self.targets = port_targets(pod)
        self.name = pod["metadata"]["name"]
        self.session = spdy.ServerSession(reader, out, self._stream, self._data)
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
                if forward.container is not None:
                    forward.container.close()

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

    async def _data(self, stream_id: int, data: bytes, fin: bool) -> None:
        """The client's bytes to the container, once it is dialled (dropped if the dial failed)."""
        forward = self.by_data_stream.get(stream_id)
        if forward is None:
            return
        await forward.dialled.wait()
        if forward.container is None:
            return
        if data:
            await forward.container.write(data)
        if fin:
            await forward.container.write(None)

    async def _run(self, forward: _Forward) -> None:
        data, error = forward.streams["data"], forward.streams["error"]
        target = self.targets.get(forward.port)
        try:
            forward.container = _Echo() if target is None else _Dialled(*await asyncio.open_connection(*target))
        except OSError as failure:
            message = f"error forwarding port {forward.port} to pod {self.name}: failed to connect: {failure}"
            with contextlib.suppress(OSError):
                await self.session.send(error, message.encode(), fin=True)
                await self.session.send(data, b"", fin=True)
            return
        finally:
            forward.dialled.set()
        with contextlib.suppress(OSError):
            while chunk := await forward.container.read():
                await self.session.send(data, chunk)
        with contextlib.suppress(OSError):
            await self.session.send(data, b"", fin=True)
            await self.session.send(error, b"", fin=True)
