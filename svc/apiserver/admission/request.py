"""The admission chain bound to one HTTP request: what admission needs from the request (its options,
as webhooks receive them) goes in, what admission produces for the response (warnings) comes out.

The registry builds `Attributes` and knows nothing of HTTP; handlers pass this wrapper instead of the
server's chain so that the options and `Warning` headers travel without widening the store's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.registry.admission import Admission, Attributes, Operation

if TYPE_CHECKING:
    from svc.apiserver.context import RequestContext

_OPTIONS_KIND = {
    Operation.CREATE: "CreateOptions",
    Operation.UPDATE: "UpdateOptions",
    Operation.DELETE: "DeleteOptions",
}


def request_options(ctx: RequestContext, operation: Operation, dry_run: bool) -> dict[str, Any] | None:
    """The options object upstream hands webhooks for `operation` (patch and apply arrive as the
    create or update they become), from the request's query."""
    kind = _OPTIONS_KIND.get(operation)
    if kind is None:
        return None
    query = ctx.request.query
    options: dict[str, Any] = {"kind": kind, "apiVersion": f"{ctx.server.profile.meta_group}/v1"}
    if dry_run:
        options["dryRun"] = ["All"]
    if operation is Operation.DELETE:
        for name in ("gracePeriodSeconds",):
            if query.get(name, "").lstrip("-").isdigit():
                options[name] = int(query[name])
        if query.get("propagationPolicy"):
            options["propagationPolicy"] = query["propagationPolicy"]
        return options
    if query.get("fieldManager"):
        options["fieldManager"] = query["fieldManager"]
    if query.get("fieldValidation"):
        options["fieldValidation"] = query["fieldValidation"]
    return options


class RequestAdmission:
    def __init__(self, chain: Admission, ctx: RequestContext) -> None:
        self._chain = chain
        self._ctx = ctx

    def _prepare(self, attributes: Attributes) -> None:
        if attributes.options is None:
            attributes.options = request_options(self._ctx, attributes.operation, attributes.dry_run)

    def _publish(self, attributes: Attributes) -> None:
        for message in attributes.warnings:
            self._ctx.warn(message)

    async def admit(self, attributes: Attributes) -> None:
        self._prepare(attributes)
        try:
            await self._chain.admit(attributes)
        finally:
            self._publish(attributes)

    async def validate(self, attributes: Attributes) -> None:
        self._prepare(attributes)
        try:
            await self._chain.validate(attributes)
        finally:
            self._publish(attributes)
