"""POST of a new object to a collection (201 Created with the stored object)."""

from __future__ import annotations

from aiohttp import web

from svc.apiserver.handlers.managed_fields import track
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status


async def create(scope: Scope) -> web.StreamResponse:
    if scope.resource.namespaced and not scope.namespace:
        raise status.StatusError(
            405, "MethodNotAllowed", "the server does not allow this method on the requested resource"
        )
    negotiated = scope.negotiate()
    obj = await scope.read_object()
    metadata = obj["metadata"]
    if scope.resource.name == "namespaces" and not metadata.get("name") and not metadata.get("generateName"):
        raise status.bad_request("name or generateName is required")
    stored = await scope.store.create(
        scope.namespace,
        track(scope, None, obj),
        admission=scope.server.admission,
        user=scope.ctx.user,
        options=scope.write_options(),
    )
    return scope.respond(201, stored, negotiated)
