"""Name the user of the request; reject (401) when nobody recognises it and anonymous is off.

Front-proxy headers are removed from the request once it is authenticated, trusted or not, so no
handler (a proxy to a pod or an aggregated server) passes on what a client forged."""

from __future__ import annotations

import time

from aiohttp import web

from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.apiserver.filters.audit import audit_failed_authentication
from svc.machinery import status


async def authenticate(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    started = time.perf_counter()
    try:
        user = await ctx.server.authenticator.authenticate(ctx.request)
    except AuthenticationError:
        user, result = None, "error"
    else:
        result = "failure" if user is None else "success"
    ctx.server.metrics.authentication.record(
        result, time.perf_counter() - started, user.name if user is not None else None
    )
    if user is None:
        error = status.unauthorized()
        await audit_failed_authentication(ctx, error)
        raise error
    ctx.user = ctx.authenticated_user = user
    ctx.request = ctx.server.authentication.strip(ctx.request)
    return await next_handler(ctx)
