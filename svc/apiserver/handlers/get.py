"""GET of one object (and of its status or scale subresource)."""

from __future__ import annotations

from aiohttp import web

from svc.apiserver.handlers.scope import Scope
from svc.machinery import status
from svc.registry import scale


async def get(scope: Scope) -> web.StreamResponse:
    negotiated = scope.negotiate()
    version = scope.query.get("resourceVersion", "")
    if version and version != "0" and (not version.isdigit() or version.startswith("0")):
        raise status.bad_request(f'invalid resource version "{version}"')
    obj = await scope.store.get(scope.namespace, scope.name, version)
    if scope.subresource == "scale":
        obj = scale.scale_of(scope.resource, obj, scope.store.strategy.scale_paths)
    return scope.respond(200, obj, negotiated)
