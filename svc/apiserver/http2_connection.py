"""HTTP/2 connections (ALPN `h2`), served by the same aiohttp application as HTTP/1.1 ones.

The `h2` library is the protocol state machine (frames, HPACK, flow-control windows, stream
states); this module moves bytes between it and the socket and runs each request stream as aiohttp
runs a request: the application's handler, then `prepare` and `write_eof` of its response (see
`http2_stream` for how a stream stands in for a connection). Settings follow upstream's
`http2.Server` configuration: `--http2-max-streams-per-connection` concurrent streams (100 when 0),
256 KiB frames and per-stream receive windows, a connection window of one stream window per stream,
and the HTTP/1.1 header budget (1 MiB) as the header list limit.

Request headers have HTTP/1.1's deadline (`ServingLimits.header_timeout`, Go's `ReadHeaderTimeout`):
the connection preface must arrive within it of the connection opening, and a header block (HEADERS
and its CONTINUATION frames, the frame being received included) within it of its first byte; else
the connection is closed, so a slowloris cannot hold a connection by never finishing a stream's
headers. While its headers are due the connection also counts in the server's bound on connections
waiting for headers (`PendingConnections`), as an HTTP/1.1 one does. (The partial block is read from
`h2`'s frame buffer, which keeps it until END_HEADERS.)

A connection with no stream for `ServingLimits.idle_timeout` (90 s, as Go's `IdleTimeout`) is
closed with a GOAWAY. Every response is sent as the peer's windows allow; a stream whose peer stops reading holds its
bytes in its own buffer (which watches count, see `svc.apiserver.watches`) while the others go on.
A reset stream ends its handler's watch as a closed connection does. `close_gracefully` sends
GOAWAY and lets open streams finish, as Go's server does on shutdown or for a `Connection: close`
response.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
from aiohttp import web
from aiohttp.http import HttpVersion11
from aiohttp.http_parser import RawRequestMessage
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from svc.apiserver.http2_stream import BODY_BUFFER, Http2Stream

if TYPE_CHECKING:
    from svc.apiserver.serving import ApiHttpServer

log = logging.getLogger(__name__)

MAX_FRAME_SIZE = 256 * 1024
_DEFAULT_WINDOW = 65535
_NO_ERROR = 0
INTERNAL_ERROR = 2
CANCEL = 8
_HEADER_FRAMES = frozenset({0x1, 0x9})  # HEADERS, CONTINUATION


class Http2Connection(asyncio.Protocol):
    def __init__(self, server: ApiHttpServer, *, max_streams: int, idle_timeout: float) -> None:
        self.server = server
        self.max_streams = max_streams
        self.idle_timeout = idle_timeout
        self._idle_timer: asyncio.TimerHandle | None = None
        self._header_timer: asyncio.TimerHandle | None = None
        self.transport: asyncio.Transport | None = None
        self.h2 = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=False, header_encoding="utf-8", validate_inbound_headers=True)
        )
        self.streams: dict[int, Http2Stream] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.closing = False
        self.requests = 0
        self._paused = False
        self._drain_waiter: asyncio.Future[None] | None = None
        self._closer: asyncio.Task[None] | None = None
        self._idle: asyncio.Event = asyncio.Event()

    # -- asyncio protocol ----------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.h2.local_settings = h2.settings.Settings(
            client=False,
            initial_values={
                h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.max_streams,
                h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: BODY_BUFFER,
                h2.settings.SettingCodes.MAX_FRAME_SIZE: MAX_FRAME_SIZE,
                # Go's server: the HTTP/1.1 header budget plus HTTP/2's 32 bytes per field for 10 fields.
                h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: self.server.limits.max_header_bytes + 320,
            },
        )
        self.h2.initiate_connection()
        self.h2.increment_flow_control_window(BODY_BUFFER * self.max_streams - _DEFAULT_WINDOW)
        self._flush()
        self.server.http2_connection_made(self)
        self._start_idle_timer()
        self._watch_headers()

    def connection_lost(self, exc: BaseException | None) -> None:
        self.closing = True
        self._stop_idle_timer()
        self._stop_header_timer()
        for stream in list(self.streams.values()):
            self._forget(stream)
        if self._drain_waiter is not None and not self._drain_waiter.done():
            self._drain_waiter.set_result(None)
        self._idle.set()
        self.server.http2_connection_lost(self)

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        if self._drain_waiter is not None and not self._drain_waiter.done():
            self._drain_waiter.set_result(None)

    def data_received(self, data: bytes) -> None:
        try:
            events = self.h2.receive_data(data)
        except h2.exceptions.ProtocolError as error:
            log.debug("closing an HTTP/2 connection after a protocol error: %s", error)
            self._flush()
            if self.transport is not None:
                self.transport.close()
            return
        for event in events:
            self._on_event(event)
        self._flush()
        self._watch_headers()

    # -- events ----------------------------------------------------------------------------------
    def _on_event(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.RequestReceived):
            self._start_request(event)
        elif isinstance(event, h2.events.DataReceived):
            stream = self.streams.get(event.stream_id)
            if stream is None:
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            else:
                stream.body_received(event.data, event.flow_controlled_length)
        elif isinstance(event, h2.events.StreamEnded):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream.payload.feed_eof()
        elif isinstance(event, h2.events.StreamReset):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                self._forget(stream)
        elif isinstance(event, h2.events.WindowUpdated | h2.events.RemoteSettingsChanged):
            stream_id = getattr(event, "stream_id", 0)
            for stream in [self.streams.get(stream_id)] if stream_id else list(self.streams.values()):
                if stream is not None and stream.pending:
                    self.send_pending(stream)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.closing = True
            if self.transport is not None:
                self.transport.close()

    def _start_request(self, event: h2.events.RequestReceived) -> None:
        pseudo: dict[str, str] = {}
        headers: CIMultiDict[str] = CIMultiDict()
        for name, value in event.headers:
            if name.startswith(":"):
                pseudo[name] = value
            else:
                headers.add(name, value)
        if ":authority" in pseudo and "host" not in headers:
            headers["Host"] = pseudo[":authority"]
        method, path = pseudo.get(":method", "GET"), pseudo.get(":path", "/")
        stream = self.streams[event.stream_id] = Http2Stream(self, event.stream_id, asyncio.get_running_loop())
        if event.stream_ended is not None:
            stream.payload.feed_eof()
        message = RawRequestMessage(
            method,
            path,
            HttpVersion11,
            CIMultiDictProxy(headers),
            tuple((name.encode(), value.encode()) for name, value in headers.items()),
            False,
            None,
            False,
            False,
            URL(path, encoded=True) if path.startswith("/") else URL(path),
        )
        self.requests += 1
        self._idle.clear()
        self._stop_idle_timer()
        task = asyncio.get_running_loop().create_task(self._serve(stream, message))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _serve(self, stream: Http2Stream, message: RawRequestMessage) -> None:
        task = asyncio.current_task()
        assert task is not None
        request = self.server.request_factory(message, stream.payload, stream, stream, task)  # type: ignore[arg-type]
        try:
            try:
                response = await self.server.request_handler(request)
            except web.HTTPException as exception:
                response = exception
            await response.prepare(request)
            await response.write_eof()
        except (ConnectionError, asyncio.CancelledError):
            pass
        except Exception:
            log.exception("error serving an HTTP/2 stream")
            self.reset(stream, INTERNAL_ERROR)
        finally:
            if not stream.closed and not stream.eof_pending:
                self.reset(stream, INTERNAL_ERROR)
            self._stream_done(stream)

    # -- sending -------------------------------------------------------------------------------
    def send_headers(self, stream: Http2Stream, fields: list[tuple[str, str]]) -> None:
        if stream.closed:
            raise ConnectionResetError("the stream was reset")
        self.h2.send_headers(stream.stream_id, fields)
        self._flush()

    def send_pending(self, stream: Http2Stream) -> None:
        """Send what the windows allow of `stream`'s waiting bytes, then its end when it is all sent."""
        if stream.closed:
            return
        try:
            while stream.pending:
                window = min(self.h2.local_flow_control_window(stream.stream_id), self.h2.max_outbound_frame_size)
                if window <= 0:
                    break
                chunk = bytes(stream.pending[:window])
                del stream.pending[:window]
                self.h2.send_data(stream.stream_id, chunk)
            if not stream.pending:
                if stream.eof_pending:
                    self.h2.end_stream(stream.stream_id)
                    self._forget(stream, reset=False)
                stream.window_opened()
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            self._forget(stream)
        self._flush()

    def acknowledge(self, stream_id: int, size: int) -> None:
        try:
            self.h2.acknowledge_received_data(size, stream_id)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            return
        self._flush()

    def reset(self, stream: Http2Stream, code: int = CANCEL) -> None:
        if stream.closed:
            return
        try:
            self.h2.reset_stream(stream.stream_id, code)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass
        self._forget(stream)
        self._flush()

    async def drain(self) -> None:
        if self._paused and not self.closing:
            if self._drain_waiter is None or self._drain_waiter.done():
                self._drain_waiter = asyncio.get_running_loop().create_future()
            await self._drain_waiter

    def transport_info(self, name: str, default: Any = None) -> Any:
        return self.transport.get_extra_info(name, default) if self.transport is not None else default

    def _flush(self) -> None:
        data = self.h2.data_to_send()
        if data and self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _forget(self, stream: Http2Stream, *, reset: bool = True) -> None:
        """The stream is over for the peer: its handler's watch (if any) ends as on a closed connection."""
        if self.streams.pop(stream.stream_id, None) is None:
            return
        stream.lost() if reset else stream.window_opened()
        stream.closed = True
        self.server.stream_lost(stream)

    def _stream_done(self, stream: Http2Stream) -> None:
        self._forget(stream, reset=False)
        if not self.tasks - {asyncio.current_task()}:
            self._idle.set()
            self._start_idle_timer()

    # -- the header deadline -------------------------------------------------------------------
    def _awaiting_headers(self) -> bool:
        """The preface, or a header block, has begun (or is due) and is not complete."""
        buffer = self.h2.incoming_buffer
        if buffer._preamble_len or buffer._headers_buffer:
            return True
        partial = buffer._data
        return bool(partial) and (len(partial) < 4 or partial[3] in _HEADER_FRAMES)

    def _watch_headers(self) -> None:
        """Start the clock when headers begin, stop it when they are complete; more bytes of the same
        headers do not restart it."""
        if not self._awaiting_headers():
            self._stop_header_timer()
        elif self._header_timer is None and not self.closing:
            timeout = self.server.limits.header_timeout
            self._header_timer = asyncio.get_running_loop().call_later(timeout, self._headers_too_slow)
            self.server.pending.add(self)

    def _stop_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
            self.server.pending.discard(self)

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        self.server.pending.discard(self)
        log.debug("closing an HTTP/2 connection whose request headers took longer than the header timeout")
        self.abort()

    def shed(self) -> None:
        """Closed to make room in the bound on connections waiting for headers."""
        self._stop_header_timer()
        self.abort()

    # -- ending --------------------------------------------------------------------------------
    def _start_idle_timer(self) -> None:
        """A connection without streams for `idle_timeout` (Go's `IdleTimeout`, 90 s) gets a GOAWAY."""
        self._stop_idle_timer()
        self._idle_timer = asyncio.get_running_loop().call_later(self.idle_timeout, self.close_gracefully)

    def _stop_idle_timer(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None

    def close_gracefully(self) -> None:
        """GOAWAY: no new streams; the connection closes when the open ones are done."""
        if self.closing or self.transport is None:
            return
        self.closing = True
        self.h2.close_connection(_NO_ERROR)
        self._flush()
        if not self.streams and not self.tasks - {asyncio.current_task()}:
            self.transport.close()
        else:
            self._closer = asyncio.get_running_loop().create_task(self._close_when_idle())

    async def _close_when_idle(self) -> None:
        await self._idle.wait()
        if self.transport is not None:
            self.transport.close()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()
