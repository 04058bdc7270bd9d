"""Outermost filter: any error below becomes an upstream-style Status response, never a traceback."""

from __future__ import annotations

import logging

from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.apiserver.responses import status_response
from svc.machinery import status

log = logging.getLogger(__name__)


async def recover(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    try:
        return await next_handler(ctx)
    except status.StatusError as error:
        return status_response(ctx, error)
    except web.HTTPException:
        raise
    except Exception as error:
        log.exception("panic serving %s %s", ctx.request.method, ctx.request.path)
        return status_response(ctx, status.internal_error(f"unexpected {type(error).__name__}: {error}"))
