"""`pods/{name}/portforward`: the port-forward stream, relayed to the pod's kubelet.

As upstream's PortForwardREST: a pod without a node is a 400, the request must be an upgrade, a
WebSocket GET must also be allowed to `create` the subresource (AuthorizePodWebsocketUpgradeCreatePermission),
and the `ports` options reach the kubelet's `/portForward` as its `port` query values. Three ways in:
- a WebSocket offering `SPDY/3.1+portforward.k8s.io` (kubectl with PortForwardWebsockets): SPDY
  tunnelled in binary messages, whose bytes go to a SPDY connection to the kubelet (as upstream's
  tunneling handler);
- a direct `Upgrade: SPDY/3.1` (older clients, kubectl's fallback): the connections are spliced;
- any other WebSocket (`v4.channel.k8s.io`, the Python client): relayed frame by frame.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlencode, urlsplit

from aiohttp import WSMsgType, web

from svc.apiserver.handlers.pod_exec import authorize_create, relay_to_kubelet
from svc.apiserver.handlers.scope import Scope
from svc.apiserver.kubelet_client import kubelet_base_url
from svc.apiserver.proxy.upgrade import splice, switch_protocols
from svc.machinery import status

TUNNELED_SPDY = "SPDY/3.1+portforward.k8s.io"
STREAM_PROTOCOL = "portforward.k8s.io"
_CHUNK = 64 * 1024


async def _kubelet_spdy(
    scope: Scope, node_name: str, params: list[tuple[str, str]]
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the kubelet's `/portForward`, upgraded to SPDY/3.1."""
    node = await scope.server.store_for("", "nodes").get("", node_name)
    url = urlsplit(kubelet_base_url(node))
    path = f"/portForward/{scope.namespace}/{scope.name}" + (f"?{urlencode(params)}" if params else "")
    try:
        reader, writer = await asyncio.open_connection(
            url.hostname, url.port, ssl=scope.server.kubelet_client.ssl_context
        )
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
            f"X-Stream-Protocol-Version: {STREAM_PROTOCOL}\r\nContent-Length: 0\r\n\r\n".encode()
        )
        await writer.drain()
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as error:
        raise status.internal_error(f'Post "{url.geturl()}{path}": {error}') from None
    code = head.split(" ", 2)[1] if head.count(" ") >= 2 else ""
    if code != "101":
        body = await reader.read(_CHUNK)
        writer.close()
        raise status.StatusError(int(code) if code.isdigit() else 500, "", body.decode("utf-8", "replace").strip())
    return reader, writer


async def _tunnel(
    request: web.Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> web.StreamResponse:
    """Carry SPDY between the client's WebSocket binary messages and the kubelet connection."""
    client = web.WebSocketResponse(protocols=(TUNNELED_SPDY,))
    await client.prepare(request)

    async def up() -> None:
        async for message in client:
            if message.type == WSMsgType.BINARY:
                writer.write(message.data)
                await writer.drain()

    async def down() -> None:
        while data := await reader.read(_CHUNK):
            await client.send_bytes(data)

    tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
    with contextlib.suppress(OSError):
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    writer.close()
    await client.close()
    return client


async def pod_port_forward(scope: Scope) -> web.StreamResponse:
    """Serve `portforward` by relaying the stream to the pod's kubelet."""
    request = scope.ctx.request
    pod = await scope.store.get(scope.namespace, scope.name)
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        raise status.bad_request(f"pod {scope.name} does not have a host assigned")
    upgrade = request.headers.get("Upgrade", "").lower()
    if upgrade not in ("websocket", "spdy/3.1"):
        raise status.bad_request("Upgrade request required")
    if request.method == "GET":
        await authorize_create(scope)
    params = [("port", port) for port in scope.query.getall("ports", [])]
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",")]
    if upgrade == "spdy/3.1":
        reader, writer = await _kubelet_spdy(scope, node_name, params)
        headers = [("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1"), ("X-Stream-Protocol-Version", STREAM_PROTOCOL)]
        response, client = await switch_protocols(request, headers)
        try:
            await splice(request, client, reader, writer)
        finally:
            writer.close()
        return response
    if TUNNELED_SPDY in offered:
        reader, writer = await _kubelet_spdy(scope, node_name, params)
        return await _tunnel(request, reader, writer)
    return await relay_to_kubelet(scope, node_name, f"portForward/{scope.namespace}/{scope.name}", params)
