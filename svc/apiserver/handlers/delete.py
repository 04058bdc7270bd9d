"""DELETE of one object, and of a collection (deletecollection)."""

from __future__ import annotations

import dataclasses
from typing import Any

from aiohttp import web

from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.apiserver.handlers import list as listing
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status
from svc.machinery.field_errors import FieldError, aggregate_message, invalid, not_supported
from svc.registry.delete import POLICIES
from svc.registry.options import DeleteOptions, Preconditions
from svc.wire.formats import DecodeError
from svc.wire.negotiation import View, input_format

UNSAFE = "ignoreStoreReadErrorWithClusterBreakingPotential"
UNSAFE_GATE = "AllowUnsafeMalformedObjectDeletion"


def _boolean(value: str, name: str) -> bool:
    lowered = value.lower()
    if lowered in ("true", "1", "t"):
        return True
    if lowered in ("false", "0", "f"):
        return False
    raise status.bad_request(f'{name}: invalid value "{value}": must be a boolean')


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise status.bad_request(f"{name}: must be an integer")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise status.bad_request(f'{name}: invalid value "{value}": must be an integer') from None


async def delete_options(scope: Scope) -> DeleteOptions:
    """Options from the body when there is one, else from the query (upstream reads one or the other)."""
    body = await scope.read_body()
    if body.strip():
        fmt = input_format(scope.ctx.request.headers.get("Content-Type", ""), scope.formats())
        try:
            raw = fmt.decode(body)
        except DecodeError as error:
            raise status.bad_request(f"couldn't get version/kind; {error}") from None
        if not isinstance(raw, dict):
            raise status.bad_request("decoded object cannot be converted to DeleteOptions")
        if raw.get("kind") not in (None, "DeleteOptions"):
            raise status.bad_request("decoded object cannot be converted to DeleteOptions")
        dry_run = raw.get("dryRun") or []
    else:
        query = scope.query
        raw = {}
        if "gracePeriodSeconds" in query:
            raw["gracePeriodSeconds"] = query["gracePeriodSeconds"]
        if "propagationPolicy" in query:
            raw["propagationPolicy"] = query["propagationPolicy"]
        if "orphanDependents" in query:
            raw["orphanDependents"] = _boolean(query["orphanDependents"], "orphanDependents")
        if UNSAFE in query:
            raw[UNSAFE] = _boolean(query[UNSAFE], UNSAFE)
        dry_run = query.getall("dryRun", [])
        if "dryRun" in query and not dry_run:
            dry_run = [""]
    return delete_options_from(scope, raw, dry_run)


def delete_options_from(scope: Scope, raw: dict[str, Any], dry_run: Any) -> DeleteOptions:
    """DeleteOptions from their decoded members, checked as upstream checks them."""
    errors: list[FieldError] = []
    for value in dry_run if isinstance(dry_run, list) else [dry_run]:
        if value not in ("All", ""):
            errors.append(not_supported("dryRun", value, ["All"]))
    policy = raw.get("propagationPolicy")
    if policy is not None and policy not in POLICIES:
        errors.append(not_supported("propagationPolicy", policy, list(POLICIES)))
    orphan = raw.get("orphanDependents")
    if orphan is not None and policy is not None:
        errors.append(
            invalid("propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set")
        )
    grace = raw.get("gracePeriodSeconds")
    if grace is not None:
        grace = _integer(grace, "gracePeriodSeconds")
    unsafe = raw.get(UNSAFE) is True and scope.server.options.feature_gates.enabled(UNSAFE_GATE)
    if unsafe:
        together = {
            "propagationPolicy": policy,
            "orphanDependents": orphan,
            "gracePeriodSeconds": grace,
            "preconditions": raw.get("preconditions"),
            "dryRun": dry_run or None,
        }
        errors += [
            invalid(UNSAFE, True, f"cannot be set together with .{name}")
            for name, value in together.items()
            if value is not None
        ]
    if errors:
        raise status.StatusError(400, "BadRequest", f'DeleteOptions "" is invalid: {aggregate_message(errors)}')
    preconditions = raw.get("preconditions") or {}
    if not isinstance(preconditions, dict):
        raise status.bad_request("preconditions must be an object")
    return DeleteOptions(
        grace_period_seconds=grace,
        preconditions=Preconditions(preconditions.get("uid"), preconditions.get("resourceVersion")),
        propagation_policy=policy,
        orphan_dependents=orphan,
        dry_run=bool(dry_run),
        ignore_store_read_error=unsafe,
    )


async def _authorize_unsafe(scope: Scope) -> None:
    """The unsafe delete needs `unsafe-delete-ignore-read-errors` besides `delete` (spec 1 §5 rule 4)."""
    assert scope.ctx.user is not None
    if scope.subresource:
        raise status.forbidden(
            scope.resource.group_resource,
            scope.name,
            f"{UNSAFE} delete option is not allowed on a subresource or non-resource request",
        )
    verb = "unsafe-delete-ignore-read-errors"
    attributes = Attributes(
        scope.ctx.user,
        verb,
        True,
        namespace=scope.namespace,
        api_group=scope.resource.group,
        api_version=scope.resource.version,
        resource=scope.resource.name,
        name=scope.name,
    )
    decision, reason = await scope.server.authorizer.authorize(attributes)
    if decision is not Decision.ALLOW:
        why = f'not permitted to do "{verb}", reason: {reason}'
        raise status.forbidden(scope.resource.group_resource, scope.name, why)


def _success(scope: Scope, uid: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": scope.name}
    if scope.resource.group:
        details["group"] = scope.resource.group
    details["kind"] = scope.resource.name
    if uid:
        details["uid"] = uid
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}


async def delete(scope: Scope) -> web.StreamResponse:
    negotiated = scope.negotiate()
    options = await delete_options(scope)
    if options.ignore_store_read_error:
        await _authorize_unsafe(scope)
        await scope.store.delete_corrupt(scope.namespace, scope.name)
        return scope.respond(200, _success(scope, ""), dataclasses.replace(negotiated, view=View.FULL))
    obj, gone = await scope.store.delete(
        scope.namespace, scope.name, options, admission=scope.server.admission, user=scope.ctx.user
    )
    if not gone:
        code = 202 if options.orphan_dependents is False else 200
        return scope.respond(code, obj, negotiated)
    if scope.resource.delete_returns_object:
        return scope.respond(200, obj, negotiated)
    result = _success(scope, obj["metadata"].get("uid", ""))
    return scope.respond(200, result, dataclasses.replace(negotiated, view=View.FULL))


async def delete_collection(scope: Scope) -> web.StreamResponse:
    negotiated = scope.negotiate()
    list_options = listing.list_options(scope)
    options = await delete_options(scope)
    deleted = await scope.store.delete_collection(
        scope.namespace,
        list_options,
        options,
        admission=scope.server.admission,
        user=scope.ctx.user,
        workers=scope.server.options.delete_collection_workers,
    )
    return scope.respond(200, deleted, negotiated, is_list=True)
