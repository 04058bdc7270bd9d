"""Headers every response carries, errors and streams included: HSTS (`--strict-transport-security-directives`,
upstream's `WithHSTS`) and CORS (`--cors-allowed-origins`, upstream's `WithCORS`: an allowed `Origin`
is echoed with the methods, headers and credentials upstream allows, and its preflight `OPTIONS` is
answered 204 before authentication).

These filters sit outside panic recovery, which turns errors into responses they can then decorate;
a streaming response gets the headers through the context's started hooks, before it is sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Filter, Handler

CORS_METHODS = "POST, GET, OPTIONS, PUT, DELETE, PATCH"
CORS_HEADERS = (
    "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since"
)
CORS_EXPOSED = "Date"


def _decorating(set_headers: Callable[[web.StreamResponse], None]) -> Filter:
    async def decorate(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
        ctx.started_hooks.append(set_headers)
        response = await next_handler(ctx)
        if not response.prepared:
            set_headers(response)
        return response

    return decorate


def hsts(directives: str) -> Filter:
    def set_headers(response: web.StreamResponse) -> None:
        response.headers["Strict-Transport-Security"] = directives

    return _decorating(set_headers)


def cors(patterns: list[str]) -> Filter:
    allowed = [re.compile(pattern) for pattern in patterns]

    async def allow_origins(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
        origin = ctx.request.headers.get("Origin")
        if not origin or not any(pattern.search(origin) for pattern in allowed):
            return await next_handler(ctx)

        def set_headers(response: web.StreamResponse) -> None:
            headers = response.headers
            headers["Access-Control-Allow-Origin"] = origin
            headers["Access-Control-Allow-Methods"] = CORS_METHODS
            headers["Access-Control-Allow-Headers"] = CORS_HEADERS
            headers["Access-Control-Expose-Headers"] = CORS_EXPOSED
            headers["Access-Control-Allow-Credentials"] = "true"

        if ctx.request.method == "OPTIONS":
            preflight = web.Response(status=204)
            set_headers(preflight)
            return preflight
        return await _decorating(set_headers)(ctx, next_handler)

    return allow_origins
