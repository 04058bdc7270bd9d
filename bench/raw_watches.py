"""Many watches at once from one thread, as cheaply as a client can open them: raw HTTP/1.1 over TLS
on asyncio, each with a small receive buffer, reading nothing after the response headers unless
asked. This is how an attacker (or a stuck client) holds watches open, so the watch memory bench
and tests use it."""

from __future__ import annotations

import asyncio
import socket
import ssl
from typing import cast
from urllib.parse import urlsplit

RECEIVE_BUFFER = 16 * 1024
CONNECT_CONCURRENCY = 50


class RawWatch(asyncio.Protocol):
    """One watch connection; once the headers are in, it stops reading unless `reading`, so the
    server's data piles up on the server's side."""

    def __init__(self, request: bytes, *, reading: bool) -> None:
        self.request = request
        self.reading = reading
        self.head = b""
        self.received = 0
        self.status = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.lost = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's TLS transport is not a subclass
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        if self.status.done():
            return
        self.head += data
        end = self.head.find(b"\r\n\r\n")
        if end >= 0:
            self.status.set_result(int(self.head.split(b" ", 2)[1]))
            if not self.reading and self.transport is not None:
                # The TLS layer keeps reading the socket into its buffer until that holds its
                # read limit, so a small limit is what makes the stop reach the server.
                self.transport.set_read_buffer_limits(high=RECEIVE_BUFFER)
                self.transport.pause_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.status.done():
            self.status.set_result(0)
        if not self.lost.done():
            self.lost.set_result(None)


async def open_watches(
    url: str, context: ssl.SSLContext, path: str, count: int, *, reading: bool = False
) -> list[RawWatch]:
    """`count` watches of `path` (query included) on the server at `url`, each answered 200 before
    this returns."""
    address = urlsplit(url)
    assert address.hostname is not None and address.port is not None
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {address.netloc}\r\nAccept: application/json\r\n"
        "Accept-Encoding: identity\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()
    limit = asyncio.Semaphore(CONNECT_CONCURRENCY)

    async def connect() -> RawWatch:
        async with limit:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
            sock.setblocking(False)
            await loop.sock_connect(sock, (address.hostname, address.port))
            _, watch = await loop.create_connection(
                lambda: RawWatch(request, reading=reading), sock=sock, ssl=context, server_hostname=address.hostname
            )
            status = await asyncio.wait_for(watch.status, 30)
            if status != 200:
                raise RuntimeError(f"a watch was answered {status}: {watch.head[:300]!r}")
            return watch

    return list(await asyncio.gather(*(connect() for _ in range(count))))


async def close_watches(watches: list[RawWatch]) -> None:
    """Abort every connection and wait (a little) until each is gone on this side."""
    for watch in watches:
        if watch.transport is not None:
            watch.transport.abort()
    await asyncio.wait_for(asyncio.gather(*(watch.lost for watch in watches)), 10)
