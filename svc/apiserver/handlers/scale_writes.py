"""A write through `/scale`, shared by PUT and PATCH: the parent is updated through the registry and the
answer is the Scale read back from it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from svc.apiserver.handlers.scope import Scope
from svc.registry import scale
from svc.wire.negotiation import Negotiated

Obj = dict[str, Any]


async def write_scale(scope: Scope, rescale: Callable[[Obj], Obj], negotiated: Negotiated) -> web.StreamResponse:
    """`rescale` maps the current Scale (with its managed fields) to the written one."""
    stored = await scale.update_scale(
        scope.store,
        scope.namespace,
        scope.name,
        rescale,
        admission=scope.server.admission,
        user=scope.ctx.user,
        options=scope.write_options(),
    )
    return scope.respond(200, scale.scale_of(scope.resource, stored, scope.store.strategy.scale_paths), negotiated)
