"""A pod spec's placement rules, as upstream's `validateAffinity` and `validateTopologySpreadConstraints`
check them: node selector terms, pod (anti-)affinity terms with their weights, and spread constraints.

Absent members are skipped, so a pod without affinity or spread constraints costs two dictionary
lookups.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, join, lookup, text
from svc.machinery.field_errors import FieldError, duplicate, forbidden, invalid, not_supported, required
from svc.machinery.labels import validate_label_selector
from svc.machinery.validation import (
    is_valid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
    validate_label_name,
)

NOT_POSITIVE: Final = "must be greater than zero"
WEIGHT_RANGE: Final = "must be in the range 1-100"
WHEN_UNSATISFIABLE: Final = ("DoNotSchedule", "ScheduleAnyway")
NODE_INCLUSION_POLICIES: Final = ("Honor", "Ignore")


def node_selector_requirement_errors(requirement: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidateNodeSelectorRequirement`: values that fit the operator, a label key, label values."""
    operator, values = lookup(requirement, "operator"), items(lookup(requirement, "values"))
    errors: list[FieldError] = []
    if operator in ("In", "NotIn"):
        if not values:
            errors.append(required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            errors.append(forbidden(f"{path}.values", detail))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            errors.append(required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errors.append(invalid(f"{path}.operator", operator or "", "not a valid selector operator"))
    errors += validate_label_name(text(requirement, "key"), f"{path}.key")
    for index, value in enumerate(values):
        if isinstance(value, str):
            errors += [invalid(f"{path}.values[{index}]", value, message) for message in is_valid_label_value(value)]
    return errors


def _node_field_requirement(requirement: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidateNodeFieldSelectorRequirement`: only `metadata.name`, with one value."""
    operator, values = lookup(requirement, "operator"), items(lookup(requirement, "values"))
    errors: list[FieldError] = []
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            detail = "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            errors.append(required(f"{path}.values", detail))
    else:
        errors.append(invalid(f"{path}.operator", operator or "", "not a valid selector operator"))
    key = text(requirement, "key")
    if key != "metadata.name":
        return [*errors, invalid(f"{path}.key", key, "not a valid field selector key")]
    for index, value in enumerate(values):
        if isinstance(value, str):
            messages = name_is_dns_subdomain(value, False)
            errors += [invalid(f"{path}.values[{index}]", value, message) for message in messages]
    return errors


def _node_selector_term(term: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, requirement in enumerate(items(lookup(term, "matchExpressions"))):
        errors += node_selector_requirement_errors(requirement, f"{path}.matchExpressions[{index}]")
    for index, requirement in enumerate(items(lookup(term, "matchFields"))):
        errors += _node_field_requirement(requirement, f"{path}.matchFields[{index}]")
    return errors


def node_selector_errors(selector: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidateNodeSelector`: at least one term, each term's requirements valid."""
    terms_path = f"{path}.nodeSelectorTerms"
    terms = items(lookup(selector, "nodeSelectorTerms"))
    if not terms:
        return [required(terms_path, "must have at least one node selector term")]
    errors: list[FieldError] = []
    for index, term in enumerate(terms):
        errors += _node_selector_term(term, f"{terms_path}[{index}]")
    return errors


def _node_affinity(affinity: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    selector = lookup(affinity, "requiredDuringSchedulingIgnoredDuringExecution")
    if type(selector) is dict:
        errors += node_selector_errors(selector, f"{path}.requiredDuringSchedulingIgnoredDuringExecution")
    preferred_path = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for index, term in enumerate(items(lookup(affinity, "preferredDuringSchedulingIgnoredDuringExecution"))):
        errors += _weight(term, f"{preferred_path}[{index}]")
        errors += _node_selector_term(lookup(term, "preference"), f"{preferred_path}[{index}].preference")
    return errors


def _weight(term: Any, path: str) -> list[FieldError]:
    weight = lookup(term, "weight")
    weight = weight if type(weight) is int else 0
    return [] if 1 <= weight <= 100 else [invalid(f"{path}.weight", weight, WEIGHT_RANGE)]


def _label_keys(keys: list[Any], selector: Any, path: str) -> list[FieldError]:
    """Upstream's `validateLabelKeys`: keys need a label selector to refine, and must be label names."""
    if not keys:
        return []
    if selector is None:
        return [forbidden(path, "must not be specified when labelSelector is not set")]
    errors: list[FieldError] = []
    for index, key in enumerate(keys):
        errors += validate_label_name(key if isinstance(key, str) else "", f"{path}[{index}]")
    return errors


def _affinity_label_keys(term: Any, path: str) -> list[FieldError]:
    """Upstream's `validateMatchLabelKeysAndMismatchLabelKeys` for one pod affinity term.

    Pods reach this with `matchLabelKeys` already merged into the selector (see
    `svc/api/kinds/pod_affinity_keys.py`), so a key the selector also names appears twice and is reported.
    Upstream indexes that error on the term's path; so does this.
    """
    match_keys, mismatch_keys = items(lookup(term, "matchLabelKeys")), items(lookup(term, "mismatchLabelKeys"))
    if not match_keys and not mismatch_keys:
        return []
    selector = lookup(term, "labelSelector")
    errors = _label_keys(match_keys, selector, f"{path}.matchLabelKeys")
    errors += _label_keys(mismatch_keys, selector, f"{path}.mismatchLabelKeys")
    if type(selector) is dict:
        positions = {key: index for index, key in enumerate(match_keys) if isinstance(key, str)}
        seen = {key for key in (selector.get("matchLabels") or {}) if isinstance(key, str)}
        for expression in items(selector.get("matchExpressions")):
            key = text(expression, "key")
            if key in positions and key in seen:
                errors.append(
                    invalid(f"{path}[{positions[key]}]", key, "exists in both matchLabelKeys and labelSelector")
                )
            seen.add(key)
    mismatched = {key for key in mismatch_keys if isinstance(key, str)}
    for index, key in enumerate(match_keys):
        if key in mismatched:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            errors.append(invalid(f"{path}.matchLabelKeys[{index}]", key, detail))
    return errors


def _pod_affinity_term(term: Any, path: str) -> list[FieldError]:
    """Upstream's `validatePodAffinityTerm`."""
    errors = validate_label_selector(lookup(term, "labelSelector"), f"{path}.labelSelector")
    errors += validate_label_selector(lookup(term, "namespaceSelector"), f"{path}.namespaceSelector")
    for name in items(lookup(term, "namespaces")):
        if isinstance(name, str):
            errors += [invalid(f"{path}.namespace", name, message) for message in name_is_dns_label(name, False)]
    errors += _affinity_label_keys(term, path)
    topology_key = text(term, "topologyKey")
    if not topology_key:
        errors.append(required(f"{path}.topologyKey", "can not be empty"))
    return errors + validate_label_name(topology_key, f"{path}.topologyKey")


def _pod_affinity(affinity: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    required_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    for index, term in enumerate(items(lookup(affinity, "requiredDuringSchedulingIgnoredDuringExecution"))):
        errors += _pod_affinity_term(term, f"{required_path}[{index}]")
    preferred_path = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for index, term in enumerate(items(lookup(affinity, "preferredDuringSchedulingIgnoredDuringExecution"))):
        where = f"{preferred_path}[{index}]"
        errors += _weight(term, where)
        errors += _pod_affinity_term(lookup(term, "podAffinityTerm"), f"{where}.podAffinityTerm")
    return errors


def affinity_errors(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `validateAffinity` for `spec.affinity`."""
    affinity = lookup(spec, "affinity")
    if type(affinity) is not dict:
        return []
    path = join(base, "affinity")
    errors: list[FieldError] = []
    if type(affinity.get("nodeAffinity")) is dict:
        errors += _node_affinity(affinity["nodeAffinity"], f"{path}.nodeAffinity")
    for key in ("podAffinity", "podAntiAffinity"):
        if type(affinity.get(key)) is dict:
            errors += _pod_affinity(affinity[key], f"{path}.{key}")
    return errors


def _min_domains(constraint: Any, path: str) -> list[FieldError]:
    value = lookup(constraint, "minDomains")
    if type(value) is not int:
        return []
    errors = [invalid(path, value, NOT_POSITIVE)] if value <= 0 else []
    action = text(constraint, "whenUnsatisfiable")
    if action != "DoNotSchedule":
        errors.append(invalid(path, value, f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"))
    return errors


def _spread_label_keys(constraint: Any, path: str) -> list[FieldError]:
    """Upstream's `validateMatchLabelKeysInTopologySpread`: label names the selector does not already use."""
    keys = items(lookup(constraint, "matchLabelKeys"))
    if not keys:
        return []
    selector = lookup(constraint, "labelSelector")
    errors: list[FieldError] = []
    if type(selector) is dict:
        used = {key for key in (selector.get("matchLabels") or {}) if isinstance(key, str)}
        used |= {text(expression, "key") for expression in items(selector.get("matchExpressions"))}
    else:
        used = set()
        errors.append(forbidden(path, "must not be specified when labelSelector is not set"))
    for index, key in enumerate(keys):
        errors += validate_label_name(key if isinstance(key, str) else "", f"{path}[{index}]")
        if key in used:
            errors.append(invalid(f"{path}[{index}]", key, "exists in both matchLabelKeys and labelSelector"))
    return errors


def _spread_constraint(constraint: Any, rest: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    skew = lookup(constraint, "maxSkew")
    skew = skew if type(skew) is int else 0
    if skew <= 0:
        errors.append(invalid(f"{path}.maxSkew", skew, NOT_POSITIVE))
    topology_key, action = text(constraint, "topologyKey"), text(constraint, "whenUnsatisfiable")
    if not topology_key:
        errors.append(required(f"{path}.topologyKey", "can not be empty"))
    if action not in WHEN_UNSATISFIABLE:
        errors.append(not_supported(f"{path}.whenUnsatisfiable", action, WHEN_UNSATISFIABLE))
    if any(text(other, "topologyKey") == topology_key and text(other, "whenUnsatisfiable") == action for other in rest):
        errors.append(duplicate(f"{path}.{{topologyKey, whenUnsatisfiable}}", f"{{{topology_key}, {action}}}"))
    errors += _min_domains(constraint, f"{path}.minDomains")
    for key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
        policy = lookup(constraint, key)
        if policy is not None and policy not in NODE_INCLUSION_POLICIES:
            errors.append(not_supported(f"{path}.{key}", policy, NODE_INCLUSION_POLICIES))
    errors += _spread_label_keys(constraint, f"{path}.matchLabelKeys")
    return errors + validate_label_selector(lookup(constraint, "labelSelector"), f"{path}.labelSelector")


def topology_spread_errors(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `validateTopologySpreadConstraints` for `spec.topologySpreadConstraints`."""
    constraints = items(lookup(spec, "topologySpreadConstraints"))
    if not constraints:
        return []
    path = join(base, "topologySpreadConstraints")
    errors: list[FieldError] = []
    for index, constraint in enumerate(constraints):
        errors += _spread_constraint(constraint, constraints[index + 1 :], f"{path}[{index}]")
    return errors
