"""One HTTP/2 stream seen as aiohttp sees a connection, so the unchanged aiohttp application serves it.

aiohttp's request and response objects talk to three collaborators: a protocol (flow control of
the body being read, the peer's address and TLS context), a transport (what `request.transport`
returns: the client certificate, the write buffer a watch watches, direct writes) and a payload
writer (headers and body of the response). `Http2Stream` is all three for one stream, over the
connection's `Http2Connection`. The request is given version 1.1, so handlers behave exactly as on
HTTP/1.1 (a watch asks for chunked encoding); the writer drops the HTTP/1.1 framing and hop-by-hop
headers, which HTTP/2 forbids, and reads `Connection: close` as Go's server does: a GOAWAY once
the stream is done.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from aiohttp.abc import AbstractStreamWriter
from aiohttp.streams import StreamReader
from multidict import CIMultiDict

if TYPE_CHECKING:
    from svc.apiserver.http2_connection import Http2Connection

# Response headers HTTP/2 forbids (RFC 9113 §8.2.2); `Connection: close` asks for a GOAWAY instead.
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"})
# Request body bytes buffered per stream before the stream's window stops being reopened.
BODY_BUFFER = 256 * 1024


class Http2Stream(AbstractStreamWriter):
    """The protocol, transport and payload writer of one stream."""

    def __init__(self, connection: Http2Connection, stream_id: int, loop: asyncio.AbstractEventLoop) -> None:
        self.connection = connection
        self.stream_id = stream_id
        self._loop = loop
        self.payload = StreamReader(self, BODY_BUFFER, loop=loop)  # type: ignore[arg-type]
        self._reading_paused = False
        self._unacknowledged = 0
        self.pending = bytearray()  # response bytes waiting for the peer to open its window
        self._eof_pending = False
        self.closed = False
        self.close_connection = False
        self._window_waiter: asyncio.Future[None] | None = None
        self._transport = StreamTransport(self)

    # -- the protocol side (aiohttp's RequestHandler, as requests and StreamReader use it) ------
    @property
    def transport(self) -> StreamTransport:  # type: ignore[override]
        return self._transport

    @property
    def ssl_context(self) -> Any:
        return self.connection.transport_info("sslcontext")

    @property
    def peername(self) -> Any:
        return self.connection.transport_info("peername")

    @property
    def sockname(self) -> Any:
        return self.connection.transport_info("sockname")

    @property
    def connected(self) -> bool:
        return not self.closed

    max_field_size = 8190
    max_headers = 128

    def pause_reading(self) -> None:
        self._reading_paused = True

    def resume_reading(self, resume_parser: bool = True) -> None:
        self._reading_paused = False
        if self._unacknowledged:
            self.connection.acknowledge(self.stream_id, self._unacknowledged)
            self._unacknowledged = 0

    def body_received(self, data: bytes, flow_controlled: int) -> None:
        """Request body bytes: reopen the window at once unless the reader has fallen behind."""
        self.payload.feed_data(data)
        if self._reading_paused:
            self._unacknowledged += flow_controlled
        elif flow_controlled:
            self.connection.acknowledge(self.stream_id, flow_controlled)

    # -- the payload writer side (aiohttp's StreamWriter) ---------------------------------------
    def enable_chunking(self) -> None:
        """HTTP/2 frames the body itself."""

    def enable_compression(self, encoding: str = "deflate", strategy: int | None = None) -> None:
        raise RuntimeError("response compression is not served over HTTP/2")

    async def write_headers(self, status_line: str, headers: CIMultiDict[str]) -> None:
        status = status_line.split(" ", 2)[1]
        fields = [(":status", status)]
        for name, value in headers.items():
            lowered = name.lower()
            if lowered == "connection" and "close" in value.lower():
                self.close_connection = True
            if lowered not in _HOP_BY_HOP:
                fields.append((lowered, value))
        self.connection.send_headers(self, fields)
        if self.close_connection:
            self.connection.close_gracefully()

    async def write(self, chunk: bytes | bytearray | memoryview) -> None:  # type: ignore[override]
        if self.closed:
            raise ConnectionResetError("the stream was reset")
        self.output_size += len(chunk)
        self.pending += chunk
        self.connection.send_pending(self)
        await self.drain()

    async def write_eof(self, chunk: bytes = b"") -> None:
        if chunk:
            await self.write(chunk)
        if self.closed:
            return
        self._eof_pending = True
        self.connection.send_pending(self)
        while self.pending and not self.closed:
            await self._wait_window()

    async def drain(self) -> None:
        """Wait while this stream has more waiting than a window's worth, or the socket is backed up."""
        while len(self.pending) > BODY_BUFFER and not self.closed:
            await self._wait_window()
        await self.connection.drain()

    @property
    def eof_pending(self) -> bool:
        return self._eof_pending

    async def _wait_window(self) -> None:
        if self._window_waiter is None or self._window_waiter.done():
            self._window_waiter = self._loop.create_future()
        await self._window_waiter

    def window_opened(self) -> None:
        if self._window_waiter is not None and not self._window_waiter.done():
            self._window_waiter.set_result(None)

    def lost(self) -> None:
        """The stream was reset or its connection lost: wake writers and readers."""
        self.closed = True
        self.window_opened()
        if not self.payload.is_eof():
            self.payload.set_exception(ConnectionResetError("the stream was reset"))


class StreamTransport:
    """What `request.transport` is for a stream: the connection's TLS details, this stream's
    buffer, and writes of body bytes that cannot wait (a watch's pushed events, unframed: HTTP/2
    frames them)."""

    __slots__ = ("_stream",)

    def __init__(self, stream: Http2Stream) -> None:
        self._stream = stream

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        if name == "socket":
            return None  # the socket is the connection's: its buffers are not one stream's to size
        return self._stream.connection.transport_info(name, default)

    def is_closing(self) -> bool:
        return self._stream.closed or self._stream.connection.closing

    def get_write_buffer_size(self) -> int:
        return len(self._stream.pending)

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        """Flow control bounds a stream's buffer: the peer's window, then `pending`."""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        stream = self._stream
        if stream.closed:
            return
        stream.pending += data
        stream.output_size += len(data)
        stream.connection.send_pending(stream)

    def abort(self) -> None:
        """What aborting a connection does to an HTTP/1.1 watch: here a RST_STREAM (CANCEL) of this stream only."""
        self._stream.connection.reset(self._stream)

    def close(self) -> None:
        self._stream.connection.reset(self._stream)
