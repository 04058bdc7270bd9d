"""SPDY/3.1 streams to a kubelet: upgrade a connection to its `/exec`, `/attach` or `/portForward`,
and splice a client's own SPDY upgrade onto it (old clients, kubectl's fallback from WebSockets)."""

from __future__ import annotations

import asyncio
from urllib.parse import urlencode, urlsplit

from aiohttp import web

from svc.apiserver.handlers.scope import Scope
from svc.apiserver.kubelet_client import kubelet_base_url
from svc.apiserver.proxy.upgrade import splice, switch_protocols
from svc.machinery import status

_CHUNK = 64 * 1024


def offered_versions(request: web.Request) -> list[str]:
    """The client's `X-Stream-Protocol-Version` values (repeated or comma-separated)."""
    return [v.strip() for header in request.headers.getall("X-Stream-Protocol-Version", []) for v in header.split(",")]


async def kubelet_spdy(
    scope: Scope, node_name: str, path: str, params: list[tuple[str, str]], versions: list[str]
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, str]:
    """A connection to the kubelet at `path`, upgraded to SPDY/3.1; with the stream protocol it chose."""
    node = await scope.server.store_for("", "nodes").get("", node_name)
    url = urlsplit(kubelet_base_url(node))
    target = f"/{path}" + (f"?{urlencode(params)}" if params else "")
    offered = "".join(f"X-Stream-Protocol-Version: {version}\r\n" for version in versions)
    try:
        reader, writer = await asyncio.open_connection(
            url.hostname, url.port, ssl=scope.server.kubelet_client.ssl_context
        )
        writer.write(
            f"POST {target} HTTP/1.1\r\nHost: {url.netloc}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
            f"{offered}Content-Length: 0\r\n\r\n".encode()
        )
        await writer.drain()
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as error:
        raise status.internal_error(f'Post "{url.geturl()}{target}": {error}') from None
    code = head[0].split(" ")[1] if head[0].count(" ") >= 1 else ""
    if code != "101":
        body = await reader.read(_CHUNK)
        writer.close()
        raise status.StatusError(int(code) if code.isdigit() else 500, "", body.decode("utf-8", "replace").strip())
    headers = dict(line.split(":", 1) for line in head[1:] if ":" in line)
    chosen = next((v.strip() for k, v in headers.items() if k.lower() == "x-stream-protocol-version"), "")
    return reader, writer, chosen


async def splice_spdy(
    request: web.Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, version: str
) -> web.StreamResponse:
    """Answer the client's SPDY upgrade with the kubelet's choice and join the two connections."""
    headers = [("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1")]
    if version:
        headers.append(("X-Stream-Protocol-Version", version))
    response, client = await switch_protocols(request, headers)
    try:
        await splice(request, client, reader, writer)
    finally:
        writer.close()
    return response
