"""PUT of a whole object: update, or create where the type allows it (200, or 201 when created)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from svc.apiserver.handlers.managed_fields import track, track_scale
from svc.apiserver.handlers.scale_writes import write_scale
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status


async def update(scope: Scope) -> web.StreamResponse:
    negotiated = scope.negotiate()
    if scope.subresource == "scale":
        body = await scope.read_object(
            "Scale", scope.resource.subresources["scale"].group + "/v1", "io.k8s.api.autoscaling.v1.Scale"
        )
    else:
        body = await scope.read_object()
    metadata = body["metadata"]
    given = metadata.get("name")
    if given is not None and given != scope.name:
        raise status.bad_request(f"the name of the object ({given}) does not match the name on the URL ({scope.name})")
    if scope.subresource == "scale":
        return await write_scale(
            scope, lambda current: track_scale(scope, current, scope.store.objects.codec.copy(body)), negotiated
        )

    async def replace(current: dict[str, Any] | None) -> dict[str, Any]:
        return track(scope, current, scope.store.objects.codec.copy(body))

    stored, created = await scope.store.update(
        scope.namespace,
        scope.name,
        replace,
        admission=scope.server.admission,
        user=scope.ctx.user,
        options=scope.write_options(),
    )
    return scope.respond(201 if created else 200, stored, negotiated)
