"""The HTTP server of `svc-apiserver`: aiohttp's low-level server with upstream's limits, on a TLS socket.

`Server` (the assembler) hands over its request handler and TLS context; this module owns how
connections are accepted and read. The TLS handshake gets the header deadline, as in Go, where
the handshake and the request headers share `ReadHeaderTimeout`. Once the handshake is done, the
protocol ALPN chose decides who reads the connection: aiohttp's HTTP/1.1 protocol, or
`Http2Connection` for `h2`, which hands each stream to the same request handler.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from svc.apiserver.audit.answer_gate import AnswerGate
from svc.apiserver.http2_connection import Http2Connection
from svc.apiserver.http2_stream import Http2Stream
from svc.apiserver.http_protocol import ApiRequestHandler
from svc.apiserver.pending_connections import PendingConnections
from svc.apiserver.serving_limits import ServingLimits


class ApiHttpServer(web.Server):
    """aiohttp's connection manager, making `ApiRequestHandler` protocols (which read `limits` as
    each connection opens) and telling `on_lost` about every connection that closes.

    Handler cancellation is off (a write must not stop halfway because its client left), so a handler
    that waits long without writing, a watch, would otherwise learn that its client has gone only at
    its timeout, holding its task and its cache registration until then."""

    def __init__(
        self,
        handler: Any,
        limits: ServingLimits,
        *,
        on_lost: Callable[[Any], None],
        http2_streams: int = 0,
        answer_gate: AnswerGate | None = None,
    ) -> None:
        # A request body is read as sent, as upstream's Go server reads it: Content-Encoding is not
        # undone, so a compressed body fails to decode as any format (a 400 Status, not a payload error).
        super().__init__(handler, handler_cancellation=False, auto_decompress=False)
        self.limits = limits
        self.pending = PendingConnections(limits.max_pending_connections)
        self._on_lost = on_lost
        self.http2_streams = http2_streams
        self.answer_gate = answer_gate
        self.http2_connections: set[Http2Connection] = set()
        self.http2_requests = 0

    def __call__(self) -> asyncio.Protocol:
        return _AlpnChoice(self)

    def http1(self) -> ApiRequestHandler:
        return ApiRequestHandler(
            self,
            loop=self._loop,
            limits=self.limits,
            pending=self.pending,
            answer_gate=self.answer_gate,
            **self._kwargs,
        )

    def connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        super().connection_lost(handler, exc)
        self._on_lost(handler)

    def http2_connection_made(self, connection: Http2Connection) -> None:
        self.http2_connections.add(connection)

    def http2_connection_lost(self, connection: Http2Connection) -> None:
        self.http2_connections.discard(connection)
        self.http2_requests += connection.requests

    def stream_lost(self, stream: Http2Stream) -> None:
        self._on_lost(stream)

    def close_http2(self) -> None:
        """GOAWAY on every HTTP/2 connection: open streams finish, no new ones start."""
        for connection in list(self.http2_connections):
            connection.close_gracefully()

    def abort_http2(self) -> None:
        for connection in list(self.http2_connections):
            connection.abort()


class _AlpnChoice(asyncio.Protocol):
    """The first protocol of every connection: asyncio calls it once the TLS handshake is done, when
    the ALPN choice is known, and it hands the transport to the protocol that speaks it."""

    def __init__(self, server: ApiHttpServer) -> None:
        self._server = server

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        ssl_object = transport.get_extra_info("ssl_object")
        chosen = ssl_object.selected_alpn_protocol() if ssl_object is not None else None
        protocol: asyncio.Protocol
        if chosen == "h2" and self._server.http2_streams:
            server = self._server
            idle = server.limits.idle_timeout
            protocol = Http2Connection(server, max_streams=server.http2_streams, idle_timeout=idle)
        else:
            protocol = self._server.http1()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)


async def listen(
    http_server: ApiHttpServer, host: str, port: int, ssl_context: ssl.SSLContext, *, reuse_port: bool = False
) -> tuple[asyncio.base_events.Server, int]:
    """Bind `host:port` (0: any free port) and serve on it; returns the listener and its port. With
    `reuse_port` (`--permit-port-sharing`) several processes may bind the same port (SO_REUSEPORT)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    listener = await asyncio.get_running_loop().create_server(
        http_server,
        sock=sock,
        ssl=ssl_context,
        backlog=1024,
        ssl_handshake_timeout=http_server.limits.header_timeout,
    )
    return listener, sock.getsockname()[1]
