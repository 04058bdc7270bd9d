"""RBAC roles and bindings (`pkg/apis/rbac/validation`): rules name verbs and what they apply to;
bindings refer to a role of the RBAC group and name their subjects. The RBAC group's served name is
brand-bearing, so the rules are built for a profile.
"""

from __future__ import annotations

from typing import Any

from svc.api.brand import Profile
from svc.api.validation.engine import Check, KindRules, UpdateCheck, items, lookup
from svc.machinery.field_errors import FieldError, Rendered, invalid, not_supported, required
from svc.machinery.gotext import json_marshal
from svc.machinery.labels import validate_label_selector
from svc.machinery.validation import is_dns1123_subdomain, is_valid_path_segment_name

UPSTREAM_GROUP = "rbac.authorization.k8s.io"


def _rule(rule: Any, path: str, *, namespaced: bool) -> list[FieldError]:
    """Upstream's `ValidatePolicyRule`."""
    errors: list[FieldError] = []
    if not lookup(rule, "verbs"):
        errors.append(required(f"{path}.verbs", "verbs must contain at least one value"))
    urls = lookup(rule, "nonResourceURLs")
    if urls:
        if namespaced:
            errors.append(
                invalid(f"{path}.nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs")
            )
        if lookup(rule, "apiGroups") or lookup(rule, "resources") or lookup(rule, "resourceNames"):
            detail = "rules cannot apply to both regular resources and non-resource URLs"
            errors.append(invalid(f"{path}.nonResourceURLs", urls, detail))
        return errors
    if not lookup(rule, "apiGroups"):
        errors.append(required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not lookup(rule, "resources"):
        errors.append(required(f"{path}.resources", "resource rules must supply at least one resource"))
    return errors


def _aggregation_rule(obj: Any, _: str) -> list[FieldError]:
    """A ClusterRole's `aggregationRule` names at least one valid label selector."""
    rule = lookup(obj, "aggregationRule")
    if type(rule) is not dict:
        return []
    path = "aggregationRule.clusterRoleSelectors"
    selectors = items(rule.get("clusterRoleSelectors"))
    errors = (
        [] if selectors else [required(path, "at least one clusterRoleSelector required if aggregationRule is non-nil")]
    )
    for index, selector in enumerate(selectors):
        selector_errors = validate_label_selector(selector, f"{path}[{index}]")
        errors += selector_errors
        if selector_errors:
            # upstream also fails to convert the selector, and shows the nil result as "null"
            errors.append(invalid(f"{path}[{index}]", "null", "invalid label selector."))
    return errors


def _role(*, namespaced: bool) -> KindRules:
    def check(obj: Any, _: str) -> list[FieldError]:
        errors: list[FieldError] = []
        for index, rule in enumerate(items(lookup(obj, "rules"))):
            errors += _rule(rule, f"rules[{index}]", namespaced=namespaced)
        return errors

    if namespaced:
        return KindRules(create=(Check(check),))
    return KindRules(create=(Check(check), Check(_aggregation_rule)))


def _subject(subject: Any, path: str, group: str, *, namespaced: bool) -> list[FieldError]:
    """Upstream's `ValidateRoleBindingSubject`."""
    errors: list[FieldError] = []
    name, kind, api_group = (str(lookup(subject, key) or "") for key in ("name", "kind", "apiGroup"))
    if not name:
        errors.append(required(f"{path}.name"))
    if kind == "ServiceAccount":
        if name:
            errors += [invalid(f"{path}.name", name, message) for message in is_dns1123_subdomain(name)]
        if api_group:
            errors.append(not_supported(f"{path}.apiGroup", api_group, ("",)))
        if not namespaced and not lookup(subject, "namespace"):
            errors.append(required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if api_group != group:
            errors.append(not_supported(f"{path}.apiGroup", api_group, (group,)))
    else:
        errors.append(not_supported(f"{path}.kind", kind, ("ServiceAccount", "User", "Group")))
    return errors


def _role_ref_value(ref: Any) -> Rendered:
    """The RoleRef struct as upstream prints it (its JSON, members in declaration order)."""
    ref = ref if isinstance(ref, dict) else {}
    members = ",".join(f'"{key}":{json_marshal(ref.get(key) or "")}' for key in ("apiGroup", "kind", "name"))
    return Rendered("{" + members + "}")


def _binding(group: str, *, namespaced: bool) -> KindRules:
    role_kinds = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)

    def check(obj: Any, _: str) -> list[FieldError]:
        errors: list[FieldError] = []
        ref_group, ref_kind, ref_name = (
            str(lookup(obj, f"roleRef.{key}") or "") for key in ("apiGroup", "kind", "name")
        )
        if ref_group != group:
            errors.append(not_supported("roleRef.apiGroup", ref_group, (group,)))
        if ref_kind not in role_kinds:
            errors.append(not_supported("roleRef.kind", ref_kind, role_kinds))
        if not ref_name:
            errors.append(required("roleRef.name"))
        else:
            errors += [invalid("roleRef.name", ref_name, message) for message in is_valid_path_segment_name(ref_name)]
        for index, subject in enumerate(items(lookup(obj, "subjects"))):
            errors += _subject(subject, f"subjects[{index}]", group, namespaced=namespaced)
        return errors

    def role_ref_fixed(new: Any, old: Any, _: str) -> list[FieldError]:
        if lookup(new, "roleRef") != lookup(old, "roleRef"):
            return [invalid("roleRef", _role_ref_value(lookup(new, "roleRef")), "cannot change roleRef")]
        return []

    return KindRules(create=(Check(check),), update=(UpdateCheck(role_ref_fixed),))


def rules(profile: Profile) -> dict[tuple[str, str], KindRules]:
    group = profile.group(UPSTREAM_GROUP)
    return {
        (UPSTREAM_GROUP, "Role"): _role(namespaced=True),
        (UPSTREAM_GROUP, "ClusterRole"): _role(namespaced=False),
        (UPSTREAM_GROUP, "RoleBinding"): _binding(group, namespaced=True),
        (UPSTREAM_GROUP, "ClusterRoleBinding"): _binding(group, namespaced=False),
    }
