"""SPDY/3.1 framing, as far as Kubernetes streaming uses it (port-forward, exec over SPDY).

Kubernetes clients still speak SPDY/3.1 for port forwarding: kubectl tunnels it through a WebSocket
(`SPDY/3.1+portforward.k8s.io`) or upgrades to it directly. A session multiplexes streams, each
opened by a SYN_STREAM whose header block is zlib-compressed against the protocol's fixed
dictionary, with one compression context per direction for the whole session.

Flow control. SPDY/3.1 gives each stream and the session a 64 KiB window: a sender may have that
much unacknowledged data in flight, and the receiver acknowledges with WINDOW_UPDATE as it consumes.
Kubernetes' own peers (moby/spdystream in kubectl, client-go and the kubelet) neither send nor honour
WINDOW_UPDATE and rely on TCP backpressure instead. So the session does both:
- received data is handed to the consumer stream by stream, in order, and acknowledged with a
  WINDOW_UPDATE (for the stream and the session) once consumed; a peer that honours our windows thus
  never has more than a window buffered here, and one that ignores them is held back by reading no
  further frames while more than `MAX_BUFFERED` bytes wait (TCP backpressure, as spdystream does);
- sent data waits for the peer's window once the peer has shown it keeps one (a WINDOW_UPDATE, or
  SETTINGS with an initial window size); every frame written waits for the transport to drain, so
  a slow reader never makes the sender buffer without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

VERSION = 3
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9
FLAG_FIN = 0x01
RST_CANCEL = 5
MAX_FRAME = 16 * 1024 * 1024
INITIAL_WINDOW = 64 * 1024
"""The window of every stream and of the session until SETTINGS say otherwise (SPDY/3.1)."""
SETTINGS_INITIAL_WINDOW_SIZE = 7
MAX_BUFFERED = 4 * INITIAL_WINDOW
"""Received bytes waiting for their consumer beyond which no further frame is read."""


def _names(*names: str) -> bytes:
    return b"".join(struct.pack(">I", len(name)) + name.encode() for name in names)


# The SPDY/3 header-compression dictionary (draft-mbelshe-httpbis-spdy-00, section 2.6.10.1).
DICTIONARY = (
    _names(
        "options",
        "head",
        "post",
        "put",
        "delete",
        "trace",
        "accept",
        "accept-charset",
        "accept-encoding",
        "accept-language",
        "accept-ranges",
        "age",
        "allow",
        "authorization",
        "cache-control",
        "connection",
        "content-base",
        "content-encoding",
        "content-language",
        "content-length",
        "content-location",
        "content-md5",
        "content-range",
        "content-type",
        "date",
        "etag",
        "expect",
        "expires",
        "from",
        "host",
        "if-match",
        "if-modified-since",
        "if-none-match",
        "if-range",
        "if-unmodified-since",
        "last-modified",
        "location",
        "max-forwards",
        "pragma",
        "proxy-authenticate",
        "proxy-authorization",
        "range",
        "referer",
        "retry-after",
        "server",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "user-agent",
        "vary",
        "via",
        "warning",
        "www-authenticate",
        "method",
        "get",
        "status",
        "200 OK",
        "version",
        "HTTP/1.1",
        "url",
        "public",
        "set-cookie",
        "keep-alive",
        "origin",
    )
    + b"100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
    b"203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized"
    b"403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable"
    b"Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT"
    b"chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,"
    b"text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0."
)


class ProtocolError(Exception):
    """The peer sent something that is not SPDY/3.1."""


@dataclass(frozen=True)
class Frame:
    control: bool
    kind: int  # the control frame type; 0 for data frames
    stream_id: int  # data frames only; control frames carry theirs in `data`
    flags: int
    data: bytes


async def read_frame(reader: asyncio.StreamReader) -> Frame | None:
    """The next frame, None at a clean end of the connection."""
    try:
        head = await reader.readexactly(8)
    except asyncio.IncompleteReadError as error:
        if error.partial:
            raise ProtocolError("truncated frame header") from None
        return None
    first, flags_length = struct.unpack(">II", head)
    flags, length = flags_length >> 24, flags_length & 0xFFFFFF
    if length > MAX_FRAME:
        raise ProtocolError(f"frame of {length} bytes is too large")
    data = await reader.readexactly(length)
    if first & 0x80000000:
        version, kind = (first >> 16) & 0x7FFF, first & 0xFFFF
        if version != VERSION:
            raise ProtocolError(f"unsupported SPDY version {version}")
        return Frame(True, kind, 0, flags, data)
    return Frame(False, 0, first & 0x7FFFFFFF, flags, data)


def control_frame(kind: int, flags: int, data: bytes) -> bytes:
    return struct.pack(">HHI", 0x8000 | VERSION, kind, (flags << 24) | len(data)) + data


def data_frame(stream_id: int, data: bytes, *, fin: bool = False) -> bytes:
    return struct.pack(">II", stream_id & 0x7FFFFFFF, ((FLAG_FIN if fin else 0) << 24) | len(data)) + data


def stream_id_of(frame: Frame) -> int:
    """The stream a control frame is about (SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE)."""
    return struct.unpack(">I", frame.data[:4])[0] & 0x7FFFFFFF


class HeaderCodec:
    """The two compression contexts of one session."""

    def __init__(self) -> None:
        self._inflate = zlib.decompressobj(zdict=DICTIONARY)
        self._deflate = zlib.compressobj(zdict=DICTIONARY)

    def decode(self, block: bytes) -> dict[str, str]:
        """Header names (lowercase) to values; several values of a name are NUL-separated as sent."""
        try:
            raw = self._inflate.decompress(block)
        except zlib.error as error:
            raise ProtocolError(f"bad header block: {error}") from None
        (count,), offset, headers = struct.unpack_from(">I", raw), 4, {}
        for _ in range(count):
            (size,) = struct.unpack_from(">I", raw, offset)
            name = raw[offset + 4 : offset + 4 + size].decode("latin-1")
            offset += 4 + size
            (size,) = struct.unpack_from(">I", raw, offset)
            headers[name.lower()] = raw[offset + 4 : offset + 4 + size].decode("latin-1")
            offset += 4 + size
        return headers

    def encode(self, headers: dict[str, str]) -> bytes:
        raw = struct.pack(">I", len(headers)) + b"".join(
            _names(name.lower()) + _names(value) for name, value in headers.items()
        )
        return self._deflate.compress(raw) + self._deflate.flush(zlib.Z_SYNC_FLUSH)


class Outgoing(Protocol):
    """The connection a session writes to: `drain` waits while too much is buffered for the peer."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...


def window_update(stream_id: int, delta: int) -> bytes:
    return control_frame(WINDOW_UPDATE, 0, struct.pack(">II", stream_id & 0x7FFFFFFF, delta & 0x7FFFFFFF))


def _initial_window(frame: Frame) -> int | None:
    """The INITIAL_WINDOW_SIZE a SETTINGS frame carries, if any."""
    (count,) = struct.unpack_from(">I", frame.data)
    found = None
    for index in range(min(count, (len(frame.data) - 4) // 8)):
        flags_id, value = struct.unpack_from(">II", frame.data, 4 + 8 * index)
        if flags_id & 0xFFFFFF == SETTINGS_INITIAL_WINDOW_SIZE:
            found = value
    return found


class ServerSession:
    """The accepting side of a session: every stream the peer opens is accepted at once (SYN_REPLY),
    PINGs are answered, streams go to `on_stream` and their data, in order per stream, to `on_data`
    (awaited: the data counts as consumed, and is acknowledged, when it returns), until the peer goes."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        out: Outgoing,
        on_stream: Callable[[int, dict[str, str]], None],
        on_data: Callable[[int, bytes, bool], Awaitable[None]],
    ) -> None:
        self.reader = reader
        self.out = out
        self.codec = HeaderCodec()
        self._on_stream = on_stream
        self._on_data = on_data
        self._inboxes: dict[int, asyncio.Queue[tuple[bytes, bool]]] = {}
        self._deliveries: dict[int, asyncio.Task[None]] = {}
        self._buffered = 0
        self._room = asyncio.Event()
        """Set whenever buffered data was consumed."""
        self._unacknowledged: dict[int, int] = {0: 0}
        self._peer_windows: dict[int, int] = {}
        self._peer_session_window = INITIAL_WINDOW
        self._peer_initial_window = INITIAL_WINDOW
        self._peer_flow_control = False
        self._window_opened = asyncio.Event()
        """Set whenever a window grew or a stream went."""
        self._closed = False

    async def run(self) -> None:
        """Serve frames until the connection ends, a GOAWAY or a protocol error."""
        try:
            while (frame := await read_frame(self.reader)) is not None:
                if not frame.control:
                    await self._receive(frame.stream_id, frame.data, bool(frame.flags & FLAG_FIN))
                elif frame.kind == SYN_STREAM:
                    stream_id = stream_id_of(frame)
                    headers = self.codec.decode(frame.data[10:])
                    self._peer_windows[stream_id] = self._peer_initial_window
                    if not frame.flags & FLAG_FIN:
                        self._open_stream(stream_id)
                    self.out.write(control_frame(SYN_REPLY, 0, struct.pack(">I", stream_id) + self.codec.encode({})))
                    self._on_stream(stream_id, headers)
                elif frame.kind == PING:
                    self.out.write(control_frame(PING, 0, frame.data))
                elif frame.kind == WINDOW_UPDATE and len(frame.data) >= 8:
                    self._open_window(stream_id_of(frame), struct.unpack_from(">I", frame.data, 4)[0] & 0x7FFFFFFF)
                elif frame.kind == SETTINGS and len(frame.data) >= 4:
                    self._settings(frame)
                elif frame.kind == RST_STREAM and len(frame.data) >= 4:
                    self._forget(stream_id_of(frame))
                elif frame.kind == GOAWAY:
                    return
        except (ProtocolError, asyncio.IncompleteReadError, OSError, struct.error):
            return
        finally:
            self._close()

    # -- receiving ----------------------------------------------------------------------------
    def _open_stream(self, stream_id: int) -> None:
        inbox: asyncio.Queue[tuple[bytes, bool]] = asyncio.Queue()
        self._inboxes[stream_id] = inbox
        self._deliveries[stream_id] = asyncio.create_task(self._deliver(stream_id, inbox), name=f"spdy-{stream_id}")

    async def _receive(self, stream_id: int, data: bytes, fin: bool) -> None:
        inbox = self._inboxes.get(stream_id)
        if inbox is None:
            return
        inbox.put_nowait((data, fin))
        if fin:
            del self._inboxes[stream_id]
        self._buffered += len(data)
        while self._buffered > MAX_BUFFERED and not self._closed:
            self._room.clear()
            await self._room.wait()

    async def _deliver(self, stream_id: int, inbox: asyncio.Queue[tuple[bytes, bool]]) -> None:
        """Hand a stream's data to the consumer in order, until its FIN; acknowledge what it consumed.
        Cancelled (a reset, the session's end), it gives up what it holds."""
        fin, held = False, 0
        try:
            while not fin:
                data, fin = await inbox.get()
                held = len(data)
                with contextlib.suppress(OSError):
                    await self._on_data(stream_id, data, fin)
                self._consume(held)
                held = 0
                self._acknowledge(stream_id, len(data), fin)
        finally:
            while not inbox.empty():
                held += len(inbox.get_nowait()[0])
            self._consume(held)
            self._deliveries.pop(stream_id, None)

    def _consume(self, size: int) -> None:
        self._buffered -= size
        self._room.set()

    def _acknowledge(self, stream_id: int, size: int, fin: bool) -> None:
        """WINDOW_UPDATEs once half a window was consumed (none for a stream the peer finished)."""
        self._unacknowledged[0] += size
        if not fin:
            self._unacknowledged[stream_id] = self._unacknowledged.get(stream_id, 0) + size
        else:
            self._unacknowledged.pop(stream_id, None)
        for target in (stream_id, 0):
            pending = self._unacknowledged.get(target, 0)
            if pending >= INITIAL_WINDOW // 2 and not self._closed:
                self.out.write(window_update(target, pending))
                self._unacknowledged[target] = 0

    # -- sending ------------------------------------------------------------------------------
    def _open_window(self, stream_id: int, delta: int) -> None:
        self._peer_flow_control = True
        if stream_id == 0:
            self._peer_session_window += delta
        elif stream_id in self._peer_windows:
            self._peer_windows[stream_id] += delta
        self._window_opened.set()

    def _settings(self, frame: Frame) -> None:
        size = _initial_window(frame)
        if size is None:
            return
        self._peer_flow_control = True
        for stream_id in self._peer_windows:
            self._peer_windows[stream_id] += size - self._peer_initial_window
        self._peer_initial_window = size
        self._window_opened.set()

    def _forget(self, stream_id: int) -> None:
        """A stream the peer reset: nothing more is delivered or sent on it."""
        self._inboxes.pop(stream_id, None)
        delivery = self._deliveries.pop(stream_id, None)
        if delivery is not None:
            delivery.cancel()
        self._peer_windows.pop(stream_id, None)
        self._window_opened.set()

    def _sendable(self, stream_id: int) -> int | None:
        """What the windows let go on the stream now (None: no limit); ConnectionResetError once it is gone."""
        if self._closed or stream_id not in self._peer_windows:
            raise ConnectionResetError(f"SPDY stream {stream_id} is closed")
        if not self._peer_flow_control:
            return None
        return min(self._peer_windows[stream_id], self._peer_session_window)

    async def _reserve(self, stream_id: int, wanted: int) -> int:
        """How much of `wanted` may go now, taken from the windows (waiting for one to open when the
        peer keeps windows)."""
        while (room := self._sendable(stream_id)) is not None and room <= 0:
            self._window_opened.clear()
            await self._window_opened.wait()
        allowed = wanted if room is None else min(wanted, room)
        self._peer_windows[stream_id] -= allowed
        self._peer_session_window -= allowed
        return allowed

    async def send(self, stream_id: int, data: bytes, *, fin: bool = False) -> None:
        """Write `data` on a stream within the peer's windows, waiting for the transport to drain;
        ConnectionResetError once the stream or the session is gone."""
        view = memoryview(data)
        while True:
            size = await self._reserve(stream_id, len(view)) if view else 0
            chunk, view = view[:size], view[size:]
            last = not view
            self.out.write(data_frame(stream_id, bytes(chunk), fin=fin and last))
            if fin and last:
                self._peer_windows.pop(stream_id, None)
            await self.out.drain()
            if last:
                return

    def _close(self) -> None:
        self._closed = True
        for task in list(self._deliveries.values()):
            task.cancel()
        self._window_opened.set()
        self._room.set()
