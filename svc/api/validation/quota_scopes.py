"""Which ResourceQuota scopes fit which resources, and the `scopeSelector` rules, as upstream's
`validateResourceQuotaScopes` and `validateScopeSelector` check them."""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import go_struct, items, lookup, mapping, text
from svc.machinery.field_errors import FieldError, invalid, required

SCOPES: Final = frozenset(
    {
        "Terminating",
        "NotTerminating",
        "BestEffort",
        "NotBestEffort",
        "PriorityClass",
        "CrossNamespacePodAffinity",
        "VolumeAttributesClass",
    }
)
_POD_COUNT: Final = frozenset({"pods"})
_POD_COMPUTE: Final = frozenset({"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"})
_CLAIMS: Final = frozenset({"persistentvolumeclaims", "requests.storage"})
_STANDARD_QUOTA: Final = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_EXISTS_ONLY: Final = frozenset(
    {"BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity"}
)
_EXISTS_ONLY_DETAIL: Final = (
    "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
    "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
)
_CONFLICTS: Final = (frozenset({"BestEffort", "NotBestEffort"}), frozenset({"Terminating", "NotTerminating"}))


def _standard(resource: str) -> bool:
    return resource in _STANDARD_QUOTA or resource.startswith(("hugepages-", "requests.hugepages-"))


def scope_fits(scope: str, resource: str) -> bool:
    """Upstream's `IsResourceQuotaScopeValidForResource`."""
    if scope == "BestEffort":
        return resource in _POD_COUNT
    if scope == "VolumeAttributesClass":
        return resource in _CLAIMS
    if scope in SCOPES:
        return resource in _POD_COUNT or resource in _POD_COMPUTE
    return True


def _misapplied(scope: str, hard: list[str]) -> int:
    return sum(1 for resource in hard if _standard(resource) and not scope_fits(scope, resource))


def scopes_errors(obj: Any, _: str) -> list[FieldError]:
    scopes = [str(scope) for scope in items(lookup(obj, "spec.scopes"))]
    hard = sorted(mapping(obj, "spec.hard"))
    errors: list[FieldError] = []
    for scope in scopes:
        if scope not in SCOPES:
            errors.append(invalid("spec.scopes", scopes, "unsupported scope"))
        errors += [invalid("spec.scopes", scopes, "unsupported scope applied to resource")] * _misapplied(scope, hard)
    errors += [invalid("spec.scopes", scopes, "conflicting scopes") for pair in _CONFLICTS if pair <= set(scopes)]
    return errors


def scope_selector_errors(obj: Any, _: str) -> list[FieldError]:
    selector = lookup(obj, "spec.scopeSelector")
    if type(selector) is not dict:
        return []
    path = "spec.scopeSelector.matchExpressions"
    hard = sorted(mapping(obj, "spec.hard"))
    shown = go_struct(selector, ("matchExpressions",))
    errors: list[FieldError] = []
    names: set[str] = set()
    for requirement in items(selector.get("matchExpressions")):
        scope, operator, values = (
            text(requirement, "scopeName"),
            text(requirement, "operator"),
            lookup(requirement, "values"),
        )
        if scope not in SCOPES:
            errors.append(invalid(f"{path}.scopeName", scope, "unsupported scope"))
        errors += [invalid(path, shown, "unsupported scope applied to resource")] * _misapplied(scope, hard)
        if scope in _EXISTS_ONLY and operator != "Exists":
            errors.append(invalid(f"{path}.operator", operator, _EXISTS_ONLY_DETAIL))
        if operator in ("In", "NotIn"):
            if not items(values):
                detail = "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"
                errors.append(required(f"{path}.values", detail))
        elif operator in ("Exists", "DoesNotExist"):
            if items(values):
                detail = "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"
                errors.append(invalid(f"{path}.values", values, detail))
        else:
            errors.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
        names.add(scope)
    scopes = lookup(obj, "spec.scopes")
    errors += [invalid(path, scopes, "conflicting scopes") for pair in _CONFLICTS if pair <= names]
    return errors
