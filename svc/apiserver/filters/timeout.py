"""Deadline for non-long-running requests: `--request-timeout`, shortened by a `?timeout=` parameter.

Watches and the streaming subresources (exec, attach, portforward, proxy, log) are long-running
and exempt, as upstream's long-running check (watches have their own timeouts). A request that does not finish
in time is answered 504 with upstream's Timeout Status; work already handed to storage completes.
The deadline is on the server's clock: under `--clock=fake` it passes when a test advances it.
"""

from __future__ import annotations

from aiohttp import web

from svc.apiserver.clock.endpoint import is_clock_stream
from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.machinery import status, wallclock
from svc.machinery.duration import parse_duration

_LONG_RUNNING_VERBS = frozenset({"watch", "proxy", "connect"})
# Upstream's long-running subresources: streams that last as long as their client wants.
_LONG_RUNNING_SUBRESOURCES = frozenset({"attach", "exec", "proxy", "log", "portforward"})


async def limit_time(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    info = ctx.info
    if info is None or info.verb in _LONG_RUNNING_VERBS or info.subresource in _LONG_RUNNING_SUBRESOURCES:
        return await next_handler(ctx)
    if not info.is_resource_request and is_clock_stream(ctx.request):
        return await next_handler(ctx)
    limit = ctx.server.options.request_timeout
    text = ctx.request.query.get("timeout")
    if text is not None:
        try:
            requested = parse_duration(text)
        except ValueError as error:
            raise status.bad_request(f"invalid timeout specified in the request URL - {error}") from None
        if 0 < requested < limit:
            limit = requested
    try:
        async with wallclock.timeout(limit, ctx.request.task.get_loop()):
            return await next_handler(ctx)
    except TimeoutError:
        raise status.StatusError(
            504,
            "Timeout",
            "Timeout: request did not complete within the allotted timeout",
            {"retryAfterSeconds": 0},
        ) from None
