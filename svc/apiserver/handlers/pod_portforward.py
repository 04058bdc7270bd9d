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

from aiohttp import WSMsgType, web

from svc.apiserver.handlers.kubelet_spdy import kubelet_spdy, splice_spdy
from svc.apiserver.handlers.pod_exec import authorize_create, relay_to_kubelet
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status

TUNNELED_SPDY = "SPDY/3.1+portforward.k8s.io"
STREAM_PROTOCOL = "portforward.k8s.io"
_CHUNK = 64 * 1024


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
    path = f"portForward/{scope.namespace}/{scope.name}"
    if upgrade == "spdy/3.1":
        reader, writer, version = await kubelet_spdy(scope, node_name, path, params, [STREAM_PROTOCOL])
        return await splice_spdy(request, reader, writer, version)
    if TUNNELED_SPDY in offered:
        reader, writer, _version = await kubelet_spdy(scope, node_name, path, params, [STREAM_PROTOCOL])
        return await _tunnel(request, reader, writer)
    return await relay_to_kubelet(scope, node_name, path, params)
