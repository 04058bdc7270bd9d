"""Proxying a request for a remote group version to its extension server, as upstream's proxy handler.

The request was authenticated and authorized here; the extension server learns who asked from the
front-proxy headers (`X-Remote-User`, `X-Remote-Group`, `X-Remote-Extra-<key>`), trusted because the
connection carries the `--proxy-client-cert-file` identity. The caller's own credentials and any
front-proxy or impersonation headers it sent are dropped. Bodies stream both ways, so watches and
long responses pass as they come; a WebSocket upgrade (kubectl's exec/attach/port-forward transport) is
relayed frame by frame. An unavailable APIService, or a service that resolves to nothing, answers 503
`service unavailable` in plain text as upstream; a failed connection answers 503 with the dial error.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import aiohttp
from aiohttp import web

from svc.apiserver.aggregator.registry import RemoteService
from svc.apiserver.aggregator.resolver import Address, Resolver
from svc.apiserver.aggregator.transport import Transport, TransportError
from svc.apiserver.context import RequestContext
from svc.apiserver.handlers.pod_exec import relay_frames
from svc.apiserver.webhook_client import Endpoint, ResolveError, _transport_reason
from svc.registry.admission import UserInfo

# Hop-by-hop headers (RFC 9110 7.6.1) and what the proxy sets itself.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
_DROPPED_PREFIXES = ("x-remote-", "impersonate-")


def plain_error(code: int, text: str) -> web.Response:
    """Go's `http.Error`: the text and a newline, as text/plain, not sniffable."""
    return web.Response(
        status=code,
        body=(text + "\n").encode(),
        headers={"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff"},
    )


def front_proxy_headers(user: UserInfo) -> list[tuple[str, str]]:
    headers = [("X-Remote-User", user.name)]
    headers.extend(("X-Remote-Group", group) for group in user.groups)
    for key, values in user.extra.items():
        headers.extend((f"X-Remote-Extra-{quote(key, safe='')}", value) for value in values)
    return headers


def forwarded_headers(request: web.BaseRequest, user: UserInfo) -> list[tuple[str, str]]:
    """The caller's headers minus credentials, hop-by-hop and front-proxy ones (`Host` becomes the dialled
    address), the caller appended to `X-Forwarded-For` (as Go's reverse proxy does), the identity headers."""
    kept = [
        (name, value)
        for name, value in request.headers.items()
        if name.lower() not in _HOP_BY_HOP
        and name.lower() not in ("authorization", "x-forwarded-for")
        and not name.lower().startswith(_DROPPED_PREFIXES)
    ]
    forwarded = [v.strip() for v in request.headers.getall("X-Forwarded-For", []) if v.strip()]
    if request.remote:
        forwarded.append(request.remote)
    extra = [("X-Forwarded-For", ", ".join(forwarded))] if forwarded else []
    return [*kept, *extra, *front_proxy_headers(user)]


class Proxy:
    def __init__(self, resolver: Resolver, transport: Transport, *, reject_redirects: bool) -> None:
        self.resolver = resolver
        self.transport = transport
        self.reject_redirects = reject_redirects

    async def serve(self, ctx: RequestContext, entry: RemoteService) -> web.StreamResponse:
        user = ctx.user
        if user is None:
            return plain_error(500, "missing user")
        if not entry.available:
            return plain_error(503, "service unavailable")
        try:
            address = await self.resolver.resolve(entry.service)
            context = self.transport.ssl_context(entry.ca_bundle, entry.insecure)
        except (ResolveError, TransportError):
            return plain_error(503, "service unavailable")
        request = ctx.request
        url = f"https://{address.netloc}{request.rel_url}"
        headers = forwarded_headers(request, user)
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._websocket(request, url, headers, context, entry)
        try:
            upstream = await self.transport.session().request(
                request.method,
                url,
                headers=headers,
                data=request.content if request.body_exists else None,
                ssl=context,
                server_hostname=entry.service.server_name,
                allow_redirects=False,
            )
        except (aiohttp.ClientError, OSError) as error:
            return plain_error(503, self._reason(error, url, address, entry))
        async with upstream:
            if self.reject_redirects and 300 <= upstream.status < 400 and upstream.headers.get("Location"):
                return plain_error(502, "the backend attempted a redirect, but redirects are not allowed")
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for name, value in upstream.headers.items():
                if name.lower() not in _HOP_BY_HOP:
                    response.headers.add(name, value)
            if upstream.headers.get("Content-Length") is not None:
                response.content_length = int(upstream.headers["Content-Length"])
            await response.prepare(request)
            try:
                async for chunk in upstream.content.iter_any():
                    await response.write(chunk)
            except (aiohttp.ClientError, ConnectionResetError):
                return response
            await response.write_eof()
        return response

    @staticmethod
    def _reason(error: BaseException, url: str, address: Address, entry: RemoteService) -> str:
        return _transport_reason(error, Endpoint(url, address.host, address.port, entry.service.server_name))

    async def _websocket(
        self,
        request: web.BaseRequest,
        url: str,
        headers: list[tuple[str, str]],
        context: Any,
        entry: RemoteService,
    ) -> web.StreamResponse:
        offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
        dropped = {"sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol", "sec-websocket-extensions"}
        kept = [(k, v) for k, v in headers if k.lower() not in dropped]
        try:
            remote = await self.transport.session().ws_connect(
                url.replace("https://", "wss://", 1),
                headers=kept,
                protocols=offered,
                ssl=context,
                server_hostname=entry.service.server_name,
            )
        except aiohttp.WSServerHandshakeError as error:
            return plain_error(error.status, error.message)
        except (aiohttp.ClientError, OSError) as error:
            return plain_error(503, str(error))
        async with remote:
            client = web.WebSocketResponse(protocols=(remote.protocol,) if remote.protocol else ())
            await client.prepare(request)
            tasks = [
                asyncio.create_task(relay_frames(remote, client)),
                asyncio.create_task(relay_frames(client, remote)),
            ]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                task.cancel()
            await client.close()
        return client
