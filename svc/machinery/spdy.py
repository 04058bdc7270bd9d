"""SPDY/3.1 framing, as far as Kubernetes streaming uses it (port-forward, exec over SPDY).

Kubernetes clients still speak SPDY/3.1 for port forwarding: kubectl tunnels it through a WebSocket
(`SPDY/3.1+portforward.k8s.io`) or upgrades to it directly. A session multiplexes streams, each
opened by a SYN_STREAM whose header block is zlib-compressed against the protocol's fixed
dictionary, with one compression context per direction for the whole session.
"""

from __future__ import annotations

import asyncio
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass

VERSION = 3
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9
FLAG_FIN = 0x01
RST_CANCEL = 5
MAX_FRAME = 16 * 1024 * 1024


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


class ServerSession:
    """The accepting side of a session: every stream the peer opens is accepted at once (SYN_REPLY),
    PINGs are answered, and streams and their data are handed to the callbacks until the peer goes."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        write: Callable[[bytes], None],
        on_stream: Callable[[int, dict[str, str]], None],
        on_data: Callable[[int, bytes, bool], None],
    ) -> None:
        self.reader = reader
        self.write = write
        self.codec = HeaderCodec()
        self._on_stream = on_stream
        self._on_data = on_data

    async def run(self) -> None:
        """Serve frames until the connection ends, a GOAWAY or a protocol error."""
        try:
            while (frame := await read_frame(self.reader)) is not None:
                if not frame.control:
                    self._on_data(frame.stream_id, frame.data, bool(frame.flags & FLAG_FIN))
                elif frame.kind == SYN_STREAM:
                    stream_id = stream_id_of(frame)
                    headers = self.codec.decode(frame.data[10:])
                    self.write(control_frame(SYN_REPLY, 0, struct.pack(">I", stream_id) + self.codec.encode({})))
                    self._on_stream(stream_id, headers)
                elif frame.kind == PING:
                    self.write(control_frame(PING, 0, frame.data))
                elif frame.kind == GOAWAY:
                    return
        except (ProtocolError, asyncio.IncompleteReadError, OSError):
            return

    def send(self, stream_id: int, data: bytes, *, fin: bool = False) -> None:
        self.write(data_frame(stream_id, data, fin=fin))
