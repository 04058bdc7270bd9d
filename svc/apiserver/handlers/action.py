"""POST to a subresource that acts (`pods/binding`, `bindings`, `pods/eviction`): 201 with a Status.

The body is read as the subresource's kind with the same checks as any create, and admitted as the
create of that subresource (a Binding, an Eviction), as upstream admits it; the action itself lives in
the registry (`svc/registry/pods/`). Upstream answers each with a Status of success.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from svc.apiserver.handlers.delete import delete_options_from
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status
from svc.registry.actions import ActionRequest, success
from svc.registry.admission import Attributes, Operation
from svc.registry.create import match_namespace
from svc.registry.pods.binding import bind
from svc.registry.pods.eviction import evict

Obj = dict[str, Any]


async def _bind(scope: Scope, request: ActionRequest) -> None:
    await bind(request)


async def _evict(scope: Scope, request: ActionRequest) -> None:
    raw = request.body.get("deleteOptions") or {}
    if not isinstance(raw, dict):
        raise status.bad_request("deleteOptions must be an object")
    dry_run = raw.get("dryRun") or (["All"] if request.dry_run else [])
    await evict(request, delete_options_from(scope, raw, dry_run))


# (upstream group, resource, subresource) -> what a POST to it does.
ACTIONS: dict[tuple[str, str, str], Callable[[Scope, ActionRequest], Awaitable[None]]] = {
    ("", "pods", "binding"): _bind,
    ("", "bindings", ""): _bind,
    ("", "pods", "eviction"): _evict,
}


async def read_posted_object(scope: Scope) -> Obj:
    """The body of a POST: an object of the subresource's kind when the path names one."""
    sub = scope.resource.subresources.get(scope.subresource)
    if sub is None:
        return await scope.read_object()
    api_version = f"{sub.group}/{sub.version}" if sub.group else sub.version
    return await scope.read_object(sub.kind, api_version, sub.definition)


def action_for(scope: Scope) -> Callable[[Scope, ActionRequest], Awaitable[None]] | None:
    if scope.ctx.request.method != "POST":
        return None
    return ACTIONS.get((scope.resource.upstream_group, scope.resource.name, scope.subresource))


async def act(scope: Scope, action: Callable[[Scope, ActionRequest], Awaitable[None]]) -> web.StreamResponse:
    negotiated = scope.negotiate(allow_views=False)
    body = await read_posted_object(scope)
    match_namespace(body["metadata"], scope.resource.namespaced, scope.namespace)
    name = scope.name or body["metadata"].get("name", "")
    attributes = Attributes(
        Operation.CREATE, scope.resource, scope.namespace, name, scope.ctx.user, scope.subresource, scope.dry_run()
    )
    attributes.object = body
    await scope.server.admission.admit(attributes)
    await scope.server.admission.validate(attributes)
    request = ActionRequest(
        namespace=scope.namespace,
        name=scope.name,
        body=body,
        dry_run=scope.dry_run(),
        user=scope.ctx.user,
        admission=scope.server.admission,
        store_for=scope.server.store_for,
    )
    await action(scope, request)
    return scope.respond(201, success(201), negotiated)
