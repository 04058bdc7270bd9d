"""Relay one HTTP request to a proxy location and stream the answer back.

HTTP/1.1 is spoken over a plain stream (direct, through the egress CONNECT proxy, TLS when the scheme
is https) so the same code serves every way into the cluster. The request goes out with
`Connection: close`, hop-by-hop headers and the caller's credentials removed; the answer is streamed
as it arrives (a chunked body is re-chunked by the server), so watches and logs behind a proxy flow.
An upgrade request (WebSocket or any other) is passed on as such; once the target switches
protocols, the two connections are spliced byte for byte.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from svc.apiserver.proxy.egress import open_cluster_connection
from svc.apiserver.proxy.location import Location
from svc.apiserver.proxy.upgrade import splice, switch_protocols

_HOP_BY_HOP = frozenset(
    (
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "authorization",
        "content-length",
    )
)
_CHUNK = 64 * 1024


async def _connect(server: Any, location: Location) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    context = server.kubelet_client.ssl_context if location.scheme == "https" else None
    if location.via_kubelet:
        return await asyncio.open_connection(location.host, location.port, ssl=context)
    reader, writer = await open_cluster_connection(server.options.egress, location.host, location.port)
    if context is not None:
        await writer.start_tls(context)
    return reader, writer


def _upgrade(request: web.Request) -> str:
    """The protocol the client asks to switch to, if any."""
    if "upgrade" not in request.headers.get("Connection", "").lower():
        return ""
    return request.headers.get("Upgrade", "")


def _request_head(request: web.Request, location: Location, path: str, length: int) -> bytes:
    authority = f"[{location.host}]:{location.port}" if ":" in location.host else f"{location.host}:{location.port}"
    target = path + (f"?{request.query_string}" if request.query_string else "")
    lines = [f"{request.method} {target} HTTP/1.1", f"Host: {authority}"]
    lines += [f"{name}: {value}" for name, value in request.headers.items() if name.lower() not in _HOP_BY_HOP]
    upgrade = _upgrade(request)
    lines += [f"Upgrade: {upgrade}", "Connection: Upgrade"] if upgrade else ["Connection: close"]
    lines += [f"Content-Length: {length}"] if length or not upgrade else []
    lines += ["", ""]
    return "\r\n".join(lines).encode("latin-1")


async def _copy_body(reader: asyncio.StreamReader, response: web.StreamResponse, chunked: bool) -> None:
    if not chunked:
        while data := await reader.read(_CHUNK):
            await response.write(data)
        return
    while True:
        size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
        if size == 0:
            return
        await response.write(await reader.readexactly(size))
        await reader.readline()


async def forward(request: web.Request, server: Any, location: Location, path: str) -> web.StreamResponse:
    """Send `request` to `path` at `location`; an OSError when the target cannot be reached."""
    body = await request.read()
    reader, writer = await _connect(server, location)
    try:
        writer.write(_request_head(request, location, path or "/", len(body)) + body)
        await writer.drain()
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        _version, code, *reason = head[0].split(" ", 2)
        headers = [line.split(":", 1) for line in head[1:] if ":" in line]
        if code == "101" and _upgrade(request):
            kept = [(name.strip(), value.strip()) for name, value in headers if name.strip().lower() != "connection"]
            response, client = await switch_protocols(request, [*kept, ("Connection", "Upgrade")])
            await splice(request, client, reader, writer)
            return response
        response = web.StreamResponse(status=int(code), reason=reason[0] if reason else None)
        chunked = False
        for name, value in headers:
            lowered = name.strip().lower()
            if lowered == "transfer-encoding":
                chunked = "chunked" in value.lower()
            elif lowered == "content-length":
                response.content_length = int(value.strip())
            elif lowered not in _HOP_BY_HOP:
                response.headers.add(name.strip(), value.strip())
        await response.prepare(request)
        await _copy_body(reader, response, chunked)
        await response.write_eof()
        return response
    finally:
        writer.close()
