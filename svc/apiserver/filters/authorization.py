"""Decide whether the user may do what the request asks (403 with upstream's message when not).

As upstream's `WithAuthorization`: an allow lets the request through even if some authorizer failed;
otherwise a failure of an authorizer (a webhook unreachable) is a plain-text 500 naming the request
URI and the error, with only the reason `internal error` in the audit annotations."""

from __future__ import annotations

import logging

import orjson
from aiohttp import web

from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.machinery import status
from svc.machinery.fields import FieldRequirement, parse_field_selector
from svc.machinery.labels import Requirement, SelectorError, parse_label_selector
from svc.machinery.status import GroupResource
from svc.storage.writer import bind_writer, unbind_writer

log = logging.getLogger(__name__)

DECISION_ANNOTATION = "authorization.k8s.io/decision"
REASON_ANNOTATION = "authorization.k8s.io/reason"
_COLLECTION_VERBS = frozenset({"list", "watch", "deletecollection"})


def _field_requirements(ctx: RequestContext, verb: str) -> tuple[FieldRequirement, ...]:
    """A collection request's field selector; one that does not parse narrows nothing (the handler
    rejects it after authorization, as upstream)."""
    selector = ctx.request.query.get("fieldSelector") if verb in _COLLECTION_VERBS else None
    if not selector:
        return ()
    try:
        return tuple(parse_field_selector(selector).requirements)
    except SelectorError:
        return ()


def _label_requirements(ctx: RequestContext, verb: str) -> tuple[Requirement, ...]:
    """A collection request's label selector; one that does not parse narrows nothing, as above."""
    selector = ctx.request.query.get("labelSelector") if verb in _COLLECTION_VERBS else None
    if not selector:
        return ()
    try:
        return parse_label_selector(selector).requirements
    except SelectorError:
        return ()


def attributes_of(ctx: RequestContext) -> Attributes:
    info = ctx.info
    assert info is not None
    assert ctx.user is not None
    return Attributes(
        user=ctx.user,
        verb=info.verb,
        is_resource_request=info.is_resource_request,
        path=info.path,
        namespace=info.namespace,
        api_group=info.api_group,
        api_version=info.api_version,
        resource=info.resource,
        subresource=info.subresource,
        name=info.name,
        field_requirements=_field_requirements(ctx, info.verb),
        label_requirements=_label_requirements(ctx, info.verb),
    )


def forbidden_message(attributes: Attributes) -> str:
    user = attributes.user.name
    if not attributes.is_resource_request:
        return f'User "{user}" cannot {attributes.verb} path "{attributes.path}"'
    resource = attributes.resource + (f"/{attributes.subresource}" if attributes.subresource else "")
    where = f'in the namespace "{attributes.namespace}"' if attributes.namespace else "at the cluster scope"
    return f'User "{user}" cannot {attributes.verb} resource "{resource}" in API group "{attributes.api_group}" {where}'


_SANITIZED = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def internal_error(request: web.Request, error: str) -> web.Response:
    """Upstream's `responsewriters.InternalError`: text, not a Status, with the URI Go-quoted."""
    uri = orjson.dumps(request.path_qs.translate(_SANITIZED)).decode()
    response = web.Response(status=500, text=f"Internal Server Error: {uri}: {error}", content_type="text/plain")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


async def authorize(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    attributes = attributes_of(ctx)
    verdict = await ctx.server.authorizer.decide(attributes)
    decision, reason, error = verdict.decision, verdict.reason, verdict.error  # not astuple: it deep-copies
    annotations = ctx.audit_annotations
    if error and decision is not Decision.ALLOW:
        if annotations is not None:
            annotations[REASON_ANNOTATION] = "internal error"
        log.error("authorization of %s failed: %s", ctx.request.path_qs, error)
        return internal_error(ctx.request, error)
    if annotations is not None:
        annotations[DECISION_ANNOTATION] = "allow" if decision is Decision.ALLOW else "forbid"
        annotations[REASON_ANNOTATION] = reason
    if decision is Decision.ALLOW:
        writer = bind_writer(attributes.user.name)  # the revision log records who wrote
        try:
            return await next_handler(ctx)
        finally:
            unbind_writer(writer)
    message = forbidden_message(attributes) + (f": {reason}" if reason else "")
    group_resource = (
        GroupResource(attributes.api_group, attributes.resource) if attributes.is_resource_request else None
    )
    raise status.forbidden(group_resource, attributes.name, message)
