"""Impersonation: `Impersonate-User`, `-Group`, `-Uid` and `-Extra-<key>` headers act as another user,
when the authenticated user may `impersonate` each of them (upstream's rules and messages)."""

from __future__ import annotations

from urllib.parse import unquote

from aiohttp import web

from svc.apiserver.authn.authenticator import ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP
from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.apiserver.filters.authorization import forbidden_message
from svc.machinery import status
from svc.machinery.status import GroupResource
from svc.registry.admission import UserInfo

_EXTRA_PREFIX = "impersonate-extra-"
_SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"


async def _allowed(ctx: RequestContext, attributes: Attributes) -> None:
    decision, reason = await ctx.server.authorizer.authorize(attributes)
    if decision is not Decision.ALLOW:
        message = forbidden_message(attributes) + (f": {reason}" if reason else "")
        raise status.forbidden(GroupResource(attributes.api_group, attributes.resource), attributes.name, message)


async def impersonate(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    headers = ctx.request.headers
    user_name = headers.get("Impersonate-User", "")
    groups = headers.getall("Impersonate-Group", [])
    uid = headers.get("Impersonate-Uid", "")
    extra: dict[str, list[str]] = {}
    for name, value in headers.items():
        if name.lower().startswith(_EXTRA_PREFIX):
            extra.setdefault(unquote(name[len(_EXTRA_PREFIX) :]).lower(), []).append(value)
    if not (user_name or groups or uid or extra):
        return await next_handler(ctx)
    if not user_name:
        raise status.bad_request("requested impersonation without impersonating a user")
    actor = ctx.user
    assert actor is not None

    def check(verb_resource: str, name: str, group: str = "", subresource: str = "", namespace: str = "") -> Attributes:
        return Attributes(
            actor,
            "impersonate",
            True,
            namespace=namespace,
            api_group=group,
            resource=verb_resource,
            subresource=subresource,
            name=name,
        )

    if user_name.startswith(_SERVICE_ACCOUNT_PREFIX) and user_name.count(":") == 3:
        _, _, namespace, account = user_name.split(":")
        await _allowed(ctx, check("serviceaccounts", account, namespace=namespace))
    else:
        await _allowed(ctx, check("users", user_name))
    for group in groups:
        await _allowed(ctx, check("groups", group))
    if uid:
        await _allowed(ctx, check("uids", uid, "authentication.k8s.io"))
    for key, values in extra.items():
        for value in values:
            await _allowed(ctx, check("userextras", value, "authentication.k8s.io", key))
    all_groups = list(groups)
    implied = UNAUTHENTICATED_GROUP if user_name == ANONYMOUS_USER else AUTHENTICATED_GROUP
    if implied not in all_groups:
        all_groups.append(implied)
    ctx.user = UserInfo(user_name, uid, tuple(all_groups), {k: tuple(v) for k, v in extra.items()})
    return await next_handler(ctx)
