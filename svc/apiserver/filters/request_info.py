"""Parse what the request is about once, for every later filter and the handler."""

from __future__ import annotations

from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.apiserver.request_info import parse_request_info


async def attach_request_info(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    request = ctx.request
    ctx.info = parse_request_info(request.method, request.path, request.query)
    return await next_handler(ctx)
