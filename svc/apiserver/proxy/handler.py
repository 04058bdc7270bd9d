"""Serve `pods/{name}/proxy/...`, `services/{name}/proxy/...` and `nodes/{name}/proxy/...`.

Authorization is the ordinary one (the request's verb on `<resource>/proxy`). An unparseable name
is a 400 `invalid <kind> request "<name>"`; a target that cannot be reached is a 503 `error trying to
reach service: ...`, as upstream's proxy error responder answers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from svc.apiserver.handlers.scope import Scope
from svc.apiserver.proxy.forward import forward
from svc.apiserver.proxy.location import (
    Location,
    node_location,
    pod_location,
    service_location,
    split_scheme_name_port,
)
from svc.machinery import status

Locate = Callable[[Scope, str, str, str], Awaitable[Location]]
LOCATORS: dict[str, tuple[str, Locate]] = {
    "pods": ("pod", pod_location),
    "services": ("service", service_location),
    "nodes": ("node", node_location),
}


def _rest_of_path(request: web.Request, name: str) -> str:
    """The path after `.../<name>/proxy`, as the client sent it (still escaped)."""
    raw = request.raw_path.split("?", 1)[0]
    marker = f"/{name}/proxy"
    index = raw.find(marker)
    return raw[index + len(marker) :] if index >= 0 else "/"


async def serve_proxy(scope: Scope) -> web.StreamResponse:
    kind, locate = LOCATORS[scope.resource.name]
    parsed = split_scheme_name_port(scope.name)
    if parsed is None:
        raise status.bad_request(f'invalid {kind} request "{scope.name}"')
    location = await locate(scope, *parsed)
    request = scope.ctx.request
    try:
        return await forward(request, scope.server, location, _rest_of_path(request, scope.name))
    except (OSError, ValueError) as error:
        raise status.service_unavailable(f"error trying to reach service: {error}") from None
