"""The `authorizer` variable: CEL's synchronous checks answered by the server's asynchronous
authorizer. An evaluation that uses it runs in a worker thread, and each check is sent back to the
event loop and awaited there (the authorizer's state lives on that loop)."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.apiserver.authz.authorizer import Attributes as AuthzAttributes
from svc.apiserver.authz.authorizer import Authorizer as ServerAuthorizer
from svc.machinery.cel.library.authz import Authorizer, Request, Verdict, request_resource
from svc.registry.admission import Attributes, UserInfo

_CHECK_TIMEOUT = 10.0


def cel_authorizer(authorizer: ServerAuthorizer, user: UserInfo, loop: asyncio.AbstractEventLoop) -> Authorizer:
    def decide(request: Request) -> Verdict:
        asked = UserInfo(request.user, groups=request.groups) if request.user != user.name else user
        attributes = AuthzAttributes(
            user=asked,
            verb=request.verb,
            is_resource_request=request.resource_request,
            path=request.path,
            namespace=request.namespace,
            api_group=request.api_group,
            api_version=request.api_version,
            resource=request.resource,
            subresource=request.subresource,
            name=request.name,
        )
        future = asyncio.run_coroutine_threadsafe(authorizer.authorize(attributes), loop)
        decision, reason = future.result(_CHECK_TIMEOUT)
        return Verdict(decision.value, reason)

    return Authorizer(user.name, user.groups, decide)


def authorizer_values(authorizer: ServerAuthorizer, attributes: Attributes) -> dict[str, Any]:
    """`authorizer` and `authorizer.requestResource` for one request."""
    cel = cel_authorizer(authorizer, attributes.user, asyncio.get_running_loop())
    resource = attributes.resource
    return {
        "authorizer": cel,
        "authorizer.requestResource": request_resource(
            cel,
            group=resource.group,
            resource=resource.name,
            subresource=attributes.subresource,
            namespace=attributes.namespace,
            name=attributes.name,
        ),
    }
