"""While the server drains at shutdown (`--shutdown-send-retry-after`), refuse new requests with 429
and `Retry-After`, and count the ones in flight so the listener closes only when they are done
(upstream's `WithRetryAfter` and `WithWaitGroup`, which exempt the same requests)."""

from __future__ import annotations

from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.apiserver.shutdown import is_exempt, retry_after_response

_LONG_RUNNING_VERBS = frozenset({"watch", "proxy", "connect"})


async def retry_after_while_draining(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    server = ctx.server
    draining = server.draining
    if draining.refusing and not is_exempt(ctx.request, server.profile.apiserver_name):
        return retry_after_response()
    info = ctx.info
    if info is not None and info.verb in _LONG_RUNNING_VERBS:
        return await next_handler(ctx)
    draining.started()
    try:
        return await next_handler(ctx)
    finally:
        draining.finished()
