"""Take over the client's connection once a request was answered `101 Switching Protocols`.

aiohttp serves WebSocket upgrades itself but hands no other protocol (SPDY, a proxied pod's own
upgrade) its raw bytes; its protocol object accepts a payload parser after an upgrade, which here
feeds a stream reader, while writes go straight to the transport.
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


async def switch_protocols(
    request: web.Request, headers: list[tuple[str, str]]
) -> tuple[web.StreamResponse, asyncio.StreamReader]:
    """Answer 101 with `headers`; the (sent) response, which the handler returns, and a reader of the client's bytes."""
    response = web.StreamResponse(status=101)
    for name, value in headers:
        response.headers.add(name, value)
    await response.prepare(request)
    reader = asyncio.StreamReader()
    request.protocol.set_parser(_Feed(reader))
    return response, reader


async def splice(
    request: web.Request, client: asyncio.StreamReader, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Copy bytes both ways between the hijacked client and a backend stream until either ends."""
    transport = request.transport

    async def up() -> None:
        while data := await client.read(_CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()

    async def down() -> None:
        while data := await reader.read(_CHUNK):
            if transport is None or transport.is_closing():
                return
            transport.write(data)

    tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
    with contextlib.suppress(OSError):
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    if transport is not None:
        transport.close()
