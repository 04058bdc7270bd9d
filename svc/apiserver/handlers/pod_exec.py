"""`pods/{name}/exec` and `pods/{name}/attach`: the remote-command stream, relayed to the kubelet.

As upstream's ExecREST/AttachREST: the container is chosen as for logs, a pod without a node is a 400,
the request must be an upgrade ("Upgrade request required" otherwise), and the options go to the
kubelet's `/exec` or `/attach` under its names (stdin→input, stdout→output, stderr→error). For a
WebSocket the API server dials the kubelet with the client's offered subprotocols, answers the client
with the one the kubelet chose, then copies frames both ways unchanged until either side closes; a
SPDY/3.1 upgrade (old clients, kubectl's fallback) is spliced onto a SPDY connection to the kubelet.
As upstream 1.36 (AuthorizePodWebsocketUpgradeCreatePermission, on by default), a WebSocket upgrade,
which is a GET, must also be allowed to `create` the subresource, as the SPDY POST always had to be.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import aiohttp
from aiohttp import WSMsgType, web

from svc.apiserver.authz.authorizer import Decision
from svc.apiserver.filters.authorization import attributes_of, forbidden_message
from svc.apiserver.flowcontrol.byte_rate import ByteRate
from svc.apiserver.handlers.kubelet_spdy import kubelet_spdy, offered_versions, splice_spdy
from svc.apiserver.handlers.pod_log import choose_container
from svc.apiserver.handlers.scope import Scope
from svc.apiserver.kubelet_client import kubelet_base_url
from svc.machinery import status
from svc.machinery.status import GroupResource

_KUBELET_NAMES = {"stdin": "input", "stdout": "output", "stderr": "error", "tty": "tty"}
_TRUE = ("1", "t", "true")


def _flags(query: Any) -> dict[str, str]:
    """The stream flags under the kubelet's names; Go's ParseBool spellings, as the Python client sends `True`."""
    return {kubelet: "1" for name, kubelet in _KUBELET_NAMES.items() if query.get(name, "").lower() in _TRUE}


def _offered_protocols(request: web.Request) -> list[str]:
    header = request.headers.get("Sec-WebSocket-Protocol", "")
    return [p.strip() for p in header.split(",") if p.strip()]


async def authorize_create(scope: Scope) -> None:
    """The extra `create` check of a WebSocket upgrade; upstream's 403 when denied."""
    attributes = dataclasses.replace(attributes_of(scope.ctx), verb="create")
    decision, reason = await scope.server.authorizer.authorize(attributes)
    if decision is not Decision.ALLOW:
        message = forbidden_message(attributes) + (f": {reason}" if reason else "")
        raise status.forbidden(GroupResource("", "pods"), scope.name, message)


async def relay_frames(source: Any, target: Any, bytes_per_second: int = 0) -> None:
    """Frames from one socket to the other until the source closes; then close the target. With
    `--max-connection-bytes-per-sec` (non-zero), at most that many bytes a second."""
    rate = ByteRate(bytes_per_second) if bytes_per_second else None
    async for message in source:
        if rate is not None and message.type in (WSMsgType.BINARY, WSMsgType.TEXT):
            await rate.take(len(message.data))
        if message.type == WSMsgType.BINARY:
            await target.send_bytes(message.data)
        elif message.type == WSMsgType.TEXT:
            await target.send_str(message.data)
    await target.close()


async def pod_stream(scope: Scope) -> web.StreamResponse:
    """Serve `exec` or `attach` (scope.subresource) by relaying to the pod's kubelet."""
    request = scope.ctx.request
    query = scope.query
    pod = await scope.store.get(scope.namespace, scope.name)
    container = choose_container(pod, scope.name, query.get("container", ""))
    flags = _flags(query)
    if not {"input", "output", "error"} & flags.keys():
        raise status.bad_request("you must specify at least 1 of stdin, stdout, stderr")
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        raise status.bad_request(f"pod {scope.name} does not have a host assigned")
    upgrade = request.headers.get("Upgrade", "").lower()
    if upgrade not in ("websocket", "spdy/3.1"):
        raise status.bad_request("Upgrade request required")
    if request.method == "GET":
        await authorize_create(scope)
    path = f"{scope.subresource}/{scope.namespace}/{scope.name}/{container}"
    params = [*(("command", c) for c in query.getall("command", [])), *flags.items()]
    if upgrade == "spdy/3.1":
        reader, writer, version = await kubelet_spdy(scope, node_name, path, params, offered_versions(request))
        return await splice_spdy(request, reader, writer, version)
    return await relay_to_kubelet(scope, node_name, path, params)


async def relay_to_kubelet(
    scope: Scope, node_name: str, path: str, params: list[tuple[str, str]]
) -> web.StreamResponse:
    """Dial the node's kubelet at `path` with the client's subprotocols and copy frames both ways."""
    request = scope.ctx.request
    node = await scope.server.store_for("", "nodes").get("", node_name)
    url = f"{kubelet_base_url(node)}/{path}"
    session = scope.server.kubelet_client.session
    try:
        kubelet = await session.ws_connect(url, params=params, protocols=_offered_protocols(request))
    except aiohttp.WSServerHandshakeError as error:
        raise status.StatusError(error.status, "", error.message) from None
    except aiohttp.ClientError as error:
        raise status.internal_error(f'Get "{url}": {error}') from None
    async with kubelet:
        client = web.WebSocketResponse(protocols=(kubelet.protocol,) if kubelet.protocol else ())
        await client.prepare(request)
        rate = scope.server.options.flowcontrol.max_connection_bytes_per_sec
        upstream = asyncio.create_task(relay_frames(kubelet, client, rate))
        downstream = asyncio.create_task(relay_frames(client, kubelet, rate))
        await asyncio.wait((upstream, downstream), return_when=asyncio.FIRST_COMPLETED)
        for task in (upstream, downstream):
            task.cancel()
        await client.close()
    return client
