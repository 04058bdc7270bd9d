"""etcd's Watch RPC on an HTTP/2 connection of our own, so one socket read delivers every event it holds.

grpc.aio hands a streaming call's messages over one per event-loop turn (each read is a completion
the poller thread passes to the loop). A watch cache behind a busy API server then reads about as
many events per second as the loop turns, far fewer than the writes it serves: measured, after 5,000
creates at 32 clients the cache of the resource held 841 of them and needed 1.3 s more to catch up.
Here `data_received` parses every gRPC message of a read at once (the `h2` library is the HTTP/2
state machine) and the watch reading them drains its whole queue before it waits again. Unary
calls stay on grpc.aio, where one message per turn is all there is.

One connection carries the watch streams of a backend, as etcd's own client multiplexes its watches;
it goes to the first member that answers, and when it is lost every stream on it fails with
StoreUnreachableError (the watch cache resumes from its revision on the next connection, which
tries the members in turn from the one after). A ping every 30 s that gets no answer within 10 s
closes it, as the gRPC channel's keepalive does for the unary calls.
"""

from __future__ import annotations

import asyncio
import collections
import ssl
import struct
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import unquote

import grpc
import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
from aetcd import rpc

from svc.storage import errors

_PATH = b"/etcdserverpb.Watch/Watch"
_WINDOW = 2**31 - 1
_DEFAULT_WINDOW = 65535
_PING_SECONDS = 30.0
_PING_TIMEOUT = 10.0
_CONNECT_TIMEOUT = 5.0
_CANCEL = 8
# gRPC statuses that say the member cannot serve now, not that the request is wrong (unary calls and
# watch streams alike)
UNAVAILABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
    }
)
_UNAVAILABLE_NUMBERS = frozenset(str(status.value[0]) for status in UNAVAILABLE)


def tls_context(cafile: str, certfile: str, keyfile: str) -> ssl.SSLContext:
    """A client context for etcd's gRPC port: its CA (else the system's), our client certificate."""
    context = ssl.create_default_context(cafile=cafile or None)
    if certfile:
        context.load_cert_chain(certfile, keyfile or None)
    context.set_alpn_protocols(["h2"])
    return context


class WatchCall:
    """One Watch stream: requests written at once, responses queued as their bytes arrive."""

    def __init__(self, connection: _Connection, stream_id: int) -> None:
        self._connection = connection
        self.stream_id = stream_id
        self._responses: collections.deque[Any] = collections.deque()
        self._buffer = bytearray()
        self._waiter: asyncio.Future[None] | None = None
        self._ended: Exception | None = None
        self._done = False

    def write(self, request: Any) -> None:
        """Send one WatchRequest; a stream that has ended ignores it (its reader learns why)."""
        if self._done:
            return
        message = request.SerializeToString()
        self._connection.send(self.stream_id, struct.pack(">BI", 0, len(message)) + message)

    def cancel(self) -> None:
        """End the stream (etcd cancels its watch)."""
        if not self._done:
            self._done = True
            self._connection.reset(self.stream_id)

    def __aiter__(self) -> WatchCall:
        return self

    async def __anext__(self) -> Any:
        while not self._responses:
            if self._ended is not None:
                raise self._ended
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._responses.popleft()

    # -- fed by the connection -------------------------------------------------------------
    def received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        start = 0
        while len(buffer) - start >= 5:
            (length,) = struct.unpack_from(">I", buffer, start + 1)
            if len(buffer) - start - 5 < length:
                break
            self._responses.append(rpc.WatchResponse.FromString(bytes(buffer[start + 5 : start + 5 + length])))
            start += 5 + length
        if start:
            del buffer[:start]
        self._wake()

    def end(self, error: Exception) -> None:
        self._done = True
        if self._ended is None:
            self._ended = error
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


def _trailer_error(headers: dict[bytes, bytes]) -> Exception:
    code = headers.get(b"grpc-status", b"2").decode()
    message = unquote(headers.get(b"grpc-message", b"").decode(errors="replace"))
    if code in _UNAVAILABLE_NUMBERS:
        return errors.StoreUnreachableError(f"etcd: {message or 'watch stream ended with status ' + code}")
    return errors.StorageError(f"etcd: {message}")


class _Connection(asyncio.Protocol):
    def __init__(self, authority: str, secure: bool, on_lost: Callable[[_Connection], None]) -> None:
        self.authority = authority
        self.scheme = b"https" if secure else b"http"
        self.on_lost = on_lost
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
        self.transport: asyncio.Transport | None = None
        self.calls: dict[int, WatchCall] = {}
        self.lost = False
        self._ping: asyncio.TimerHandle | None = None
        self._ping_deadline: asyncio.TimerHandle | None = None

    # -- asyncio protocol ------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports do not subclass asyncio's
        self.h2.local_settings = h2.settings.Settings(
            client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: _WINDOW}
        )
        self.h2.initiate_connection()
        self.h2.increment_flow_control_window(_WINDOW - _DEFAULT_WINDOW)
        self._flush()
        self._schedule_ping()

    def data_received(self, data: bytes) -> None:
        try:
            events = self.h2.receive_data(data)
        except h2.exceptions.ProtocolError as error:
            self._fail(errors.StoreUnreachableError(f"etcd: HTTP/2 protocol error on the watch connection: {error}"))
            return
        for event in events:
            self._handle(event)
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(errors.StoreUnreachableError(f"etcd: watch connection lost{f': {exc}' if exc else ''}"))

    # -- streams ---------------------------------------------------------------------------
    def open(self) -> WatchCall:
        if self.lost:
            raise errors.StoreUnreachableError("etcd: watch connection lost")
        stream_id = self.h2.get_next_available_stream_id()
        headers = [
            (b":method", b"POST"),
            (b":scheme", self.scheme),
            (b":path", _PATH),
            (b":authority", self.authority.encode()),
            (b"content-type", b"application/grpc"),
            (b"te", b"trailers"),
        ]
        self.h2.send_headers(stream_id, headers)
        call = self.calls[stream_id] = WatchCall(self, stream_id)
        self._flush()
        return call

    def send(self, stream_id: int, data: bytes) -> None:
        if self.lost or stream_id not in self.calls:
            return
        # a watch request is far smaller than any window etcd grants, so it is never held back
        self.h2.send_data(stream_id, data)
        self._flush()

    def reset(self, stream_id: int) -> None:
        if self.calls.pop(stream_id, None) is None or self.lost:
            return
        try:
            self.h2.reset_stream(stream_id, _CANCEL)
        except h2.exceptions.StreamClosedError:
            return
        self._flush()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    # -- internals -------------------------------------------------------------------------
    def _handle(self, event: Any) -> None:
        if isinstance(event, h2.events.DataReceived):
            self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            call = self.calls.get(event.stream_id)
            if call is not None:
                call.received(event.data)
        elif isinstance(event, h2.events.TrailersReceived | h2.events.ResponseReceived):
            headers = dict(event.headers)
            if b"grpc-status" in headers and headers[b"grpc-status"] != b"0":
                self._end(event.stream_id, _trailer_error(headers))
            elif isinstance(event, h2.events.ResponseReceived) and headers.get(b":status") != b"200":
                status = headers.get(b":status", b"").decode()
                self._end(event.stream_id, errors.StoreUnreachableError(f"etcd: watch answered HTTP {status}"))
        elif isinstance(event, h2.events.StreamEnded):
            self._end(event.stream_id, errors.StoreUnreachableError("etcd closed the watch stream"))
        elif isinstance(event, h2.events.StreamReset):
            self._end(
                event.stream_id, errors.StoreUnreachableError(f"etcd reset the watch stream ({event.error_code})")
            )
        elif isinstance(event, h2.events.PingAckReceived):
            if self._ping_deadline is not None:
                self._ping_deadline.cancel()
                self._ping_deadline = None
            self._schedule_ping()
        elif isinstance(event, h2.events.ConnectionTerminated):
            self._fail(errors.StoreUnreachableError(f"etcd closed the watch connection ({event.error_code})"))

    def _end(self, stream_id: int, error: Exception) -> None:
        call = self.calls.pop(stream_id, None)
        if call is not None:
            call.end(error)

    def _fail(self, error: Exception) -> None:
        if self.lost:
            return
        self.lost = True
        for timer in (self._ping, self._ping_deadline):
            if timer is not None:
                timer.cancel()
        calls, self.calls = self.calls, {}
        for call in calls.values():
            call.end(error)
        if self.transport is not None:
            self.transport.abort()
        self.on_lost(self)

    def _flush(self) -> None:
        data = self.h2.data_to_send()
        if data and self.transport is not None and not self.lost:
            self.transport.write(data)

    def _schedule_ping(self) -> None:
        if not self.lost:
            self._ping = asyncio.get_running_loop().call_later(_PING_SECONDS, self._send_ping)

    def _send_ping(self) -> None:
        self.h2.ping(b"svcwatch")
        self._flush()
        self._ping_deadline = asyncio.get_running_loop().call_later(
            _PING_TIMEOUT, self._fail, errors.StoreUnreachableError("etcd: watch connection keepalive timed out")
        )


class WatchConnections:
    """The backend's watch connection, opened on first use and again after it is lost."""

    def __init__(self, members: list[tuple[str, int]], context: ssl.SSLContext | None) -> None:
        self._members = members
        self._context = context
        self._next = 0
        self._current: _Connection | None = None
        self._opening: asyncio.Future[_Connection] | None = None

    async def open_call(self) -> WatchCall:
        """A new Watch stream; raises StoreUnreachableError when no member takes a connection."""
        connection = self._current
        if connection is None or connection.lost:
            connection = await self._connect()
        return connection.open()

    def close(self) -> None:
        if self._current is not None:
            self._current.close()
            self._current = None

    async def _connect(self) -> _Connection:
        # watches starting together (every cache at start-up) share one dial
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._dial())
            self._opening.add_done_callback(self._dialled)
        return await asyncio.shield(self._opening)

    def _dialled(self, opening: asyncio.Future[_Connection]) -> None:
        self._opening = None
        if not opening.cancelled() and opening.exception() is None:
            self._current = opening.result()

    async def _dial(self) -> _Connection:
        loop = asyncio.get_running_loop()
        failures = []
        for _ in range(len(self._members)):
            host, port = self._members[self._next]
            self._next = (self._next + 1) % len(self._members)
            authority = f"{host}:{port}"
            try:
                async with asyncio.timeout(_CONNECT_TIMEOUT):
                    _, connection = await loop.create_connection(
                        lambda authority=authority: _Connection(authority, self._context is not None, self._lost),
                        host,
                        port,
                        ssl=self._context,
                        server_hostname=host if self._context is not None else None,
                    )
            except (OSError, TimeoutError, ssl.SSLError) as error:
                failures.append(f"{authority}: {error or type(error).__name__}")
                continue
            return connection
        raise errors.StoreUnreachableError(f"etcd: no member took the watch connection ({'; '.join(failures)})")

    def _lost(self, connection: _Connection) -> None:
        if self._current is connection:
            self._current = None
