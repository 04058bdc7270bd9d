"""The variables every policy expression sees for one request, shared by both policy plugins:
`object`, `oldObject`, `request`, `namespaceObject` and the `authorizer` pair. The namespace is read
and the authorizer bound only for policies whose expressions mention them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from svc.apiserver.admission.matching import NamespaceGetter, is_namespace_request
from svc.apiserver.admission.plugins.policy.authorizer import authorizer_values
from svc.apiserver.admission.plugins.policy.expressions import (
    NAMESPACE_OBJECT,
    OBJECT,
    OLD_OBJECT,
    REQUEST,
    PolicyExpressions,
)
from svc.apiserver.authz.authorizer import Authorizer
from svc.registry.admission import Attributes

T = TypeVar("T")


async def request_values(
    expressions: PolicyExpressions,
    attributes: Attributes,
    request: dict[str, Any],
    *,
    get_namespace: NamespaceGetter,
    authorizer: Authorizer,
) -> dict[str, Any]:
    values: dict[str, Any] = {
        OBJECT: attributes.object,
        OLD_OBJECT: attributes.old_object,
        REQUEST: request,
        NAMESPACE_OBJECT: None,
    }
    if expressions.uses_namespace and attributes.namespace and not is_namespace_request(attributes):
        values[NAMESPACE_OBJECT] = await get_namespace(attributes.namespace)
    if expressions.uses_authorizer:
        values.update(authorizer_values(authorizer, attributes))
    return values


async def evaluate(expressions: PolicyExpressions, run: Callable[[], T]) -> T:
    """Runs `run` here, or in a worker thread when the policy calls the authorizer (whose checks
    are answered on this loop, see `authorizer`)."""
    if expressions.uses_authorizer:
        return await asyncio.to_thread(run)
    return run()
