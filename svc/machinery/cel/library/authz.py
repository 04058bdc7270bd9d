"""The `authz` library: `authorizer.group(g).resource(r).namespace(n).name(x).check(verb).allowed()`.

The library builds the request's attributes; the deciding itself is the caller's `decide`
function (the server's authorizer chain, adapted), so this package keeps no dependency on the
API server. `decide` is synchronous because CEL evaluation is: a caller on an event loop runs the
evaluation in a worker thread and bridges to its asynchronous authorizer there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from svc.machinery import validation
from svc.machinery.cel.values import CelError, CelType, NoSuchOverload, register_type

ALLOW: Final = "allow"


@dataclass(frozen=True)
class Request:
    """What a check asks, in the terms of upstream's authorizer attributes."""

    user: str
    groups: tuple[str, ...]
    verb: str
    resource_request: bool
    path: str = ""
    api_group: str = ""
    api_version: str = "*"
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    field_selector: str = ""
    label_selector: str = ""


@dataclass(frozen=True)
class Verdict:
    """An authorizer's answer: `decision` is "allow", "deny" or "no opinion"."""

    decision: str
    reason: str = ""
    error: str = ""


Decide = Callable[[Request], Verdict]


@dataclass(frozen=True)
class Authorizer:
    cel_type = CelType("kubernetes.authorization.Authorizer")
    user: str
    groups: tuple[str, ...]
    decide: Decide = dataclasses.field(compare=False)


@dataclass(frozen=True)
class PathCheck:
    cel_type = CelType("kubernetes.authorization.PathCheck")
    authorizer: Authorizer
    path: str


@dataclass(frozen=True)
class GroupCheck:
    cel_type = CelType("kubernetes.authorization.GroupCheck")
    authorizer: Authorizer
    group: str


@dataclass(frozen=True)
class ResourceCheck:
    cel_type = CelType("kubernetes.authorization.ResourceCheck")
    authorizer: Authorizer
    group: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    field_selector: str = ""
    label_selector: str = ""


@dataclass(frozen=True)
class Decision:
    cel_type = CelType("kubernetes.authorization.Decision")
    verdict: Verdict


for _kind in (Authorizer, PathCheck, GroupCheck, ResourceCheck, Decision):
    register_type(_kind, _kind.cel_type)


def _typed(name: str, value: Any, kind: type, *strings: Any) -> Any:
    if type(value) is not kind or any(type(s) is not str for s in strings):
        raise NoSuchOverload(name)
    return value


def path(authorizer: Any, text: Any) -> PathCheck:
    _typed("path", authorizer, Authorizer, text)
    if not text.strip():
        raise CelError("path must not be empty")
    return PathCheck(authorizer, text)


def group(authorizer: Any, name: Any) -> GroupCheck:
    return GroupCheck(_typed("group", authorizer, Authorizer, name), name)


def service_account(authorizer: Any, namespace: Any, name: Any) -> Authorizer:
    _typed("serviceAccount", authorizer, Authorizer, namespace, name)
    if validation.name_is_dns_subdomain(name, False):
        raise CelError("Invalid service account name")
    if validation.name_is_dns_label(namespace, False):
        raise CelError("Invalid service account namespace")
    groups = ("system:serviceaccounts", f"system:serviceaccounts:{namespace}")
    return Authorizer(f"system:serviceaccount:{namespace}:{name}", groups, authorizer.decide)


def resource(check: Any, name: Any) -> ResourceCheck:
    _typed("resource", check, GroupCheck, name)
    if not name.strip():
        raise CelError("resource must not be empty")
    return ResourceCheck(check.authorizer, check.group, name)


def _setter(field: str) -> Callable[[Any, Any], ResourceCheck]:
    def set_field(check: Any, value: Any) -> ResourceCheck:
        return dataclasses.replace(_typed(field, check, ResourceCheck, value), **{field: value})

    return set_field


def check(target: Any, verb: Any) -> Decision:
    if type(verb) is not str:
        raise NoSuchOverload("check")
    if type(target) is PathCheck:
        who = target.authorizer
        request = Request(who.user, who.groups, verb, False, path=target.path)
    elif type(target) is ResourceCheck:
        who = target.authorizer
        request = Request(
            who.user,
            who.groups,
            verb,
            True,
            api_group=target.group,
            resource=target.resource,
            subresource=target.subresource,
            namespace=target.namespace,
            name=target.name,
            field_selector=target.field_selector,
            label_selector=target.label_selector,
        )
    else:
        raise NoSuchOverload("check")
    return Decision(who.decide(request))


def _verdict(name: str, value: Any) -> Verdict:
    return _typed(name, value, Decision).verdict


def request_resource(authorizer: Authorizer, *, group: str, resource: str, **rest: str) -> ResourceCheck:
    """`authorizer.requestResource` for a policy: a check on the resource the request is for."""
    return ResourceCheck(authorizer, group, resource, **rest)


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "path": path,
    "group": group,
    "serviceAccount": service_account,
    "resource": resource,
    "subresource": _setter("subresource"),
    "namespace": _setter("namespace"),
    "name": _setter("name"),
    "fieldSelector": _setter("field_selector"),
    "labelSelector": _setter("label_selector"),
    "check": check,
    "allowed": lambda d: _verdict("allowed", d).decision == ALLOW,
    "reason": lambda d: _verdict("reason", d).reason,
    "errored": lambda d: bool(_verdict("errored", d).error),
    "error": lambda d: _verdict("error", d).error,
}
