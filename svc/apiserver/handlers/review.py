"""Virtual resources answered on create and never stored: who am I, and may a user do something.

`selfsubjectreviews` echo the request's user; the access reviews ask the server's own authorizer chain
(the same one the authorization filter uses), so `kubectl auth whoami` and `kubectl auth can-i` see
exactly what the server enforces.

The answers are written as upstream's REST storage builds them: the access and token reviews give back
the request with its status filled in; the self-subject and rules reviews are new objects, so the
request's metadata and spec are not echoed (a rules review's `spec` is `{}`), and a self-subject
review carries the time it was made as `creationTimestamp`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from svc.api.omit_empty import decoded_pruner
from svc.apiserver.authn.authenticator import AUTHENTICATED_GROUP, AuthenticationError
from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.apiserver.authz.rbac.rules import Rule
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status
from svc.machinery.fields import FieldRequirement, parse_field_selector
from svc.machinery.labels import Operator, Requirement, SelectorError, new_requirement, parse_label_selector
from svc.registry.admission import UserInfo
from svc.registry.create import match_namespace, now_rfc3339

Obj = dict[str, Any]


def _user_info(user: UserInfo) -> Obj:
    info: Obj = {"username": user.name}
    if user.uid:
        info["uid"] = user.uid
    if user.groups:
        info["groups"] = list(user.groups)
    if user.extra:
        info["extra"] = {key: list(values) for key, values in user.extra.items()}
    return info


async def _self_subject(scope: Scope, body: Obj) -> Obj:
    assert scope.ctx.user is not None
    return {"status": {"userInfo": _user_info(scope.ctx.user)}, "metadata": {"creationTimestamp": now_rfc3339()}}


_SINGLE_VALUE_OPERATORS = {"In": Operator.EQUALS, "NotIn": Operator.NOT_EQUALS}


def _field_requirements(selector: Any) -> tuple[FieldRequirement, ...]:
    """`resourceAttributes.fieldSelector`: a raw selector, or requirements of which a single-valued
    In or NotIn is an equality (the only field requirements upstream's authorizers read); anything
    else narrows nothing."""
    if not isinstance(selector, dict):
        return ()
    raw = selector.get("rawSelector")
    if isinstance(raw, str) and raw:
        try:
            return tuple(parse_field_selector(raw).requirements)
        except SelectorError:
            return ()
    found = []
    for requirement in selector.get("requirements") or ():
        if not isinstance(requirement, dict):
            continue
        operator = _SINGLE_VALUE_OPERATORS.get(requirement.get("operator", ""))
        values = requirement.get("values")
        if operator is not None and isinstance(values, list) and len(values) == 1 and isinstance(values[0], str):
            found.append(FieldRequirement(str(requirement.get("key", "")), operator, values[0]))
    return tuple(found)


_REVIEW_LABEL_OPERATORS = {
    "In": Operator.IN,
    "NotIn": Operator.NOT_IN,
    "Exists": Operator.EXISTS,
    "DoesNotExist": Operator.DOES_NOT_EXIST,
}


def _label_requirements(selector: Any) -> tuple[Requirement, ...]:
    """`resourceAttributes.labelSelector`: a raw selector or requirements, as a list's `labelSelector`
    narrows the request; a requirement that does not parse is left out, as upstream's review does."""
    if not isinstance(selector, dict):
        return ()
    raw = selector.get("rawSelector")
    if isinstance(raw, str) and raw:
        try:
            return parse_label_selector(raw).requirements
        except SelectorError:
            return ()
    found = []
    for requirement in selector.get("requirements") or ():
        if not isinstance(requirement, dict):
            continue
        operator = _REVIEW_LABEL_OPERATORS.get(requirement.get("operator", ""))
        values = requirement.get("values") or []
        if operator is None or not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            continue
        try:
            found.append(new_requirement(str(requirement.get("key", "")), operator, values))
        except SelectorError:
            continue
    return tuple(found)


async def _token(scope: Scope, body: Obj) -> Obj:
    """Upstream's TokenReview: the token authenticators the API's requests meet, asked for the
    review's audiences (the API's when it names none); a failure is reported, not raised."""
    spec = body.get("spec") or {}
    token = spec.get("token") or ""
    if not token:
        raise status.bad_request("token is required for TokenReview in authentication")
    tokens = scope.server.tokens
    audiences = tuple(spec.get("audiences") or tokens.api_audiences)
    result: Obj = {}
    try:
        found = await tokens.union.authenticate_token(token, audiences)
    except AuthenticationError as error:
        found = None
        result["error"] = str(error)
    if found is None:
        return _echoed(scope, body, {"user": {}, **result})
    user = found.user
    if AUTHENTICATED_GROUP not in user.groups:
        user = UserInfo(user.name, user.uid, (*user.groups, AUTHENTICATED_GROUP), user.extra)
    review_status: Obj = {"authenticated": True, "user": _user_info(user)}
    if found.audiences:
        review_status["audiences"] = list(found.audiences)
    return _echoed(scope, body, review_status)


def _attributes(user: UserInfo, spec: Obj) -> Attributes:
    resource = spec.get("resourceAttributes")
    if isinstance(resource, dict):
        return Attributes(
            user=user,
            verb=resource.get("verb", ""),
            is_resource_request=True,
            namespace=resource.get("namespace", ""),
            api_group=resource.get("group", ""),
            api_version=resource.get("version", ""),
            resource=resource.get("resource", ""),
            subresource=resource.get("subresource", ""),
            name=resource.get("name", ""),
            field_requirements=_field_requirements(resource.get("fieldSelector")),
            label_requirements=_label_requirements(resource.get("labelSelector")),
        )
    non_resource = spec.get("nonResourceAttributes")
    if isinstance(non_resource, dict):
        return Attributes(
            user=user, verb=non_resource.get("verb", ""), is_resource_request=False, path=non_resource.get("path", "")
        )
    raise status.bad_request("exactly one of nonResourceAttributes or resourceAttributes must be specified")


async def _decide(scope: Scope, user: UserInfo, body: Obj) -> Obj:
    verdict = await scope.server.authorizer.decide(_attributes(user, body.get("spec") or {}))
    result: Obj = {"allowed": verdict.decision is Decision.ALLOW}
    if verdict.decision is Decision.DENY:
        result["denied"] = True
    if verdict.reason:
        result["reason"] = verdict.reason
    if verdict.error:
        result["evaluationError"] = verdict.error
    return _echoed(scope, body, result)


def _echoed(scope: Scope, body: Obj, review_status: Obj) -> Obj:
    """The request given back with its status, as upstream's access and token reviews answer: its
    metadata as decoded (never created, so no creation time) and its `spec` (always written) as its Go
    type writes it again, without the empty values its `omitempty` fields leave out (`groups: []`)."""
    spec = {"spec": body.get("spec") or {}}
    prune = decoded_pruner(scope.resource.upstream_group, scope.resource.version, scope.resource.kind)
    if prune is not None:
        prune(spec)
    return {"metadata": {**body["metadata"], "creationTimestamp": None}, **spec, "status": review_status}


async def _self_access(scope: Scope, body: Obj) -> Obj:
    assert scope.ctx.user is not None
    return await _decide(scope, scope.ctx.user, body)


def _subject(spec: Obj) -> UserInfo:
    if not spec.get("user") and not spec.get("groups"):
        raise status.bad_request("at least one of user or group must be specified")
    extra = {key: tuple(values) for key, values in (spec.get("extra") or {}).items()}
    return UserInfo(spec.get("user", ""), spec.get("uid", ""), tuple(spec.get("groups") or ()), extra)


async def _access(scope: Scope, body: Obj) -> Obj:
    return await _decide(scope, _subject(body.get("spec") or {}), body)


async def _local_access(scope: Scope, body: Obj) -> Obj:
    spec = body.get("spec") or {}
    namespace = (spec.get("resourceAttributes") or {}).get("namespace", "")
    if namespace != scope.namespace:
        raise status.bad_request(f"spec.resourceAttributes.namespace must match namespace: {scope.namespace}")
    return await _decide(scope, _subject(spec), body)


async def _self_rules(scope: Scope, body: Obj) -> Obj:
    """The rules the chain can list for the requester in a namespace (upstream's rules review): a new
    review holding only the status, so its `spec` is `{}` and the lists are `[]` when empty."""
    assert scope.ctx.user is not None
    namespace = (body.get("spec") or {}).get("namespace", "")
    if not namespace:
        raise status.bad_request("no namespace on request")
    rules, incomplete, error = scope.server.rule_resolver(scope.ctx.user, namespace)
    result: Obj = {
        "resourceRules": [_resource_rule(rule) for rule in rules if rule.resources],
        "nonResourceRules": [
            {"verbs": list(rule.verbs), "nonResourceURLs": list(rule.non_resource_urls)}
            for rule in rules
            if rule.non_resource_urls
        ],
        "incomplete": incomplete,
    }
    if error:
        result["evaluationError"] = error
    return {"metadata": {"creationTimestamp": None}, "spec": {}, "status": result}


def _resource_rule(rule: Rule) -> Obj:
    """`verbs` is always written; the other lists are `omitempty`."""
    out: Obj = {"verbs": list(rule.verbs)}
    for key, values in (
        ("apiGroups", rule.api_groups),
        ("resources", rule.resources),
        ("resourceNames", rule.resource_names),
    ):
        if values:
            out[key] = list(values)
    return out


REVIEWS: dict[str, Callable[[Scope, Obj], Awaitable[Obj]]] = {
    "selfsubjectreviews": _self_subject,
    "tokenreviews": _token,
    "selfsubjectaccessreviews": _self_access,
    "subjectaccessreviews": _access,
    "localsubjectaccessreviews": _local_access,
    "selfsubjectrulesreviews": _self_rules,
}


async def review(scope: Scope) -> web.StreamResponse:
    negotiated = scope.negotiate(allow_views=False)
    body = await scope.read_object()
    match_namespace(body["metadata"], scope.resource.namespaced, scope.namespace)
    answer = await REVIEWS[scope.resource.name](scope, body)
    result = {"kind": scope.resource.kind, "apiVersion": scope.resource.api_version, **answer}
    return scope.respond(201, result, negotiated)
