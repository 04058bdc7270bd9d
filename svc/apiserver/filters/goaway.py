"""`--goaway-chance`: a fraction of HTTP/2 requests get `Connection: close`, which the HTTP/2
protocol turns into a GOAWAY (upstream's `WithProbabilisticGoaway`): the client's other streams
finish, and its next requests open a new connection, through the load balancer to maybe another
server. HTTP/1.1 requests are left alone, as upstream does."""

from __future__ import annotations

import random

from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Filter, Handler
from svc.apiserver.http2_stream import StreamTransport


def probabilistic_goaway(chance: float, draw: random.Random | None = None) -> Filter:
    rng = draw or random.Random()

    async def goaway(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
        if not isinstance(ctx.request.transport, StreamTransport) or rng.random() >= chance:
            return await next_handler(ctx)
        ctx.started_hooks.append(web.StreamResponse.force_close)
        response = await next_handler(ctx)
        response.force_close()
        return response

    return goaway
