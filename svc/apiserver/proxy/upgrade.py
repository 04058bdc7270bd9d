"""Take over the client's connection once a request was answered `101 Switching Protocols`.

aiohttp serves WebSocket upgrades itself but hands no other protocol (SPDY, a proxied pod's own
upgrade) its raw bytes; its protocol object accepts a payload parser after an upgrade, which here
feeds a stream reader, while writes go straight to the transport. Both directions keep asyncio's
flow control: the reader pauses the transport while it holds too much, and `ClientConnection.drain`
waits while the transport's write buffer is above its high-water mark, so a slow peer holds the
copying back instead of making either side buffer without bound.
"""

from __future__ import annotations

import asyncio
import contextlib

from aiohttp import web

_CHUNK = 64 * 1024


class _Feed:
    """The payload parser aiohttp calls with every byte that arrives after the upgrade."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        self._reader.feed_data(data)
        return False, b""

    def feed_eof(self) -> None:
        self._reader.feed_eof()


class ClientConnection:
    """Writing to the client's connection after the upgrade."""

    def __init__(self, request: web.Request) -> None:
        self._transport = request.transport
        self._protocol = request.protocol

    def write(self, data: bytes) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    async def drain(self) -> None:
        """Wait while the transport buffers more than its high-water mark (aiohttp's protocol pauses
        writing then, and its own stream writer waits on the same helper)."""
        if self._transport is None or self._transport.is_closing():
            raise ConnectionResetError("the client connection is closed")
        if self._protocol.writing_paused:
            await self._protocol._drain_helper()


async def switch_protocols(
    request: web.Request, headers: list[tuple[str, str]]
) -> tuple[web.StreamResponse, asyncio.StreamReader]:
    """Answer 101 with `headers`; the (sent) response, which the handler returns, and a reader of the client's bytes."""
    response = web.StreamResponse(status=101)
    for name, value in headers:
        response.headers.add(name, value)
    await response.prepare(request)
    reader = asyncio.StreamReader(limit=_CHUNK)
    if request.transport is not None:
        reader.set_transport(request.transport)
    request.protocol.set_parser(_Feed(reader))
    return response, reader


async def splice(
    request: web.Request, client: asyncio.StreamReader, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Copy bytes both ways between the hijacked client and a backend stream until either ends."""
    transport = request.transport
    connection = ClientConnection(request)

    async def up() -> None:
        with contextlib.suppress(OSError):
            while data := await client.read(_CHUNK):
                writer.write(data)
                await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()

    async def down() -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(_CHUNK):
                connection.write(data)
                await connection.drain()

    tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    if transport is not None:
        transport.close()
