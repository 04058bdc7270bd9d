"""The HTTP server of `svc-apiserver`: aiohttp's low-level server with upstream's limits, on a TLS socket.

`Server` (the assembler) hands over its request handler and TLS context; this module owns how
connections are accepted and read. The TLS handshake gets the header deadline, as in Go, where
the handshake and the request headers share `ReadHeaderTimeout`.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from svc.apiserver.http_protocol import ApiRequestHandler
from svc.apiserver.pending_connections import PendingConnections
from svc.apiserver.serving_limits import ServingLimits


class ApiHttpServer(web.Server):
    """aiohttp's connection manager, making `ApiRequestHandler` protocols (which read `limits` as
    each connection opens) and telling `on_lost` about every connection that closes.

    Handler cancellation is off (a write must not stop halfway because its client left), so a handler
    that waits long without writing, a watch, would otherwise learn that its client has gone only at
    its timeout, holding its task and its cache registration until then."""

    def __init__(self, handler: Any, limits: ServingLimits, *, on_lost: Callable[[RequestHandler], None]) -> None:
        # A request body is read as sent, as upstream's Go server reads it: Content-Encoding is not
        # undone, so a compressed body fails to decode as any format (a 400 Status, not a payload error).
        super().__init__(handler, handler_cancellation=False, auto_decompress=False)
        self.limits = limits
        self.pending = PendingConnections(limits.max_pending_connections)
        self._on_lost = on_lost

    def __call__(self) -> ApiRequestHandler:
        return ApiRequestHandler(self, loop=self._loop, limits=self.limits, pending=self.pending, **self._kwargs)

    def connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        super().connection_lost(handler, exc)
        self._on_lost(handler)


async def listen(
    http_server: ApiHttpServer, host: str, port: int, ssl_context: ssl.SSLContext
) -> tuple[asyncio.base_events.Server, int]:
    """Bind `host:port` (0: any free port) and serve on it; returns the listener and its port."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    listener = await asyncio.get_running_loop().create_server(
        http_server,
        sock=sock,
        ssl=ssl_context,
        backlog=1024,
        ssl_handshake_timeout=http_server.limits.header_timeout,
    )
    return listener, sock.getsockname()[1]
