"""Outermost filter: any error below becomes an upstream-style Status response, never a traceback.

A storage failure that no layer translated (a full disk) is answered as upstream answers an etcd
error it has no Status for: 500 with no reason and the backend's own message, logged in one line.
"""

from __future__ import annotations

import logging

from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.apiserver.responses import status_response
from svc.machinery import status
from svc.storage.errors import StorageError, StoreUnreachableError

log = logging.getLogger(__name__)


async def recover(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    try:
        return await next_handler(ctx)
    except status.StatusError as error:
        return status_response(ctx, error)
    except web.HTTPException:
        raise
    except StoreUnreachableError as error:
        # The store is unreachable (etcd down, a lost leader): a retry may succeed, so 503, not 500.
        return status_response(ctx, status.service_unavailable(str(error)))
    except StorageError as error:
        log.error("apiserver received an error that is not an metav1.Status: %s", error)
        return status_response(ctx, status.unconverted(str(error)))
    except Exception as error:
        log.exception("panic serving %s %s", ctx.request.method, ctx.request.path)
        return status_response(ctx, status.internal_error(f"unexpected {type(error).__name__}: {error}"))
