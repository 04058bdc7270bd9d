"""The chain filter that applies fault rules, after authorization and before the handlers.

With no rule set it is one attribute read. The test endpoints themselves are never faulted, so a
rule matching everything can still be removed.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from svc.apiserver.admin_endpoints import PREFIX
from svc.apiserver.context import RequestContext
from svc.apiserver.faults.rules import DelayAction, DropWatchAction, ErrorAction
from svc.apiserver.filters import Handler


async def inject_faults(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    faults = ctx.server.faults
    if not faults.rules:
        return await next_handler(ctx)
    info = ctx.info
    if info is None or ctx.request.path.startswith(PREFIX):
        return await next_handler(ctx)
    user = ctx.user.name if ctx.user is not None else "system:anonymous"
    action = faults.pick(info, user)
    if isinstance(action, ErrorAction):
        raise action.status_error()
    if isinstance(action, DelayAction):
        await asyncio.sleep(action.seconds)
    elif isinstance(action, DropWatchAction):
        _end_watch_after(ctx, action.after_seconds)
    return await next_handler(ctx)


def _end_watch_after(ctx: RequestContext, seconds: int) -> None:
    """Shorten the watch's own timeout, so the stream ends cleanly (the final chunk is sent) as a
    watch does when the server closes it; 0 ends it at once."""
    query = ctx.request.query.copy()
    text = query.get("timeoutSeconds") or "0"
    if not text.lstrip("-").isdigit():
        return  # the handler answers the bad value with its 400
    current = int(text)
    query["timeoutSeconds"] = str(min(seconds, current) if current > 0 else seconds) if seconds > 0 else "-1"
    ctx.request = ctx.request.clone(rel_url=ctx.request.rel_url.with_query(query))
