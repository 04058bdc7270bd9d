"""ValidatingAdmissionPolicy and its binding, structure only (`pkg/apis/admissionregistration/validation`):
failure policy, param kind, match constraints and rules, the presence of validations or audit
annotations, reasons, messages, audit annotation keys, param references and validation actions.

Every CEL expression is compiled too (`policy_expressions`), so a policy that cannot run is refused
when it is written.
"""

from __future__ import annotations

import re
from typing import Any, Final

from svc.api.validation.admission_webhooks import rule_errors
from svc.api.validation.engine import Check, KindRules, items, lookup, mapping, text
from svc.api.validation.policy_expressions import mutating_expression_errors, validating_expression_errors
from svc.machinery.field_errors import FieldError, duplicate, forbidden, invalid, not_supported, required
from svc.machinery.labels import validate_label_selector
from svc.machinery.validation import (
    is_dns1035_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_path_segment_name,
)

_FAILURE_POLICIES: Final = ("Fail", "Ignore")
_MATCH_POLICIES: Final = ("Equivalent", "Exact")
_REASONS: Final = ("Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized")
_ACTIONS: Final = ("Audit", "Deny", "Warn")
_NOT_FOUND_ACTIONS: Final = ("Deny", "Allow")
_MAX_AUDIT_ANNOTATIONS: Final = 20
_MAX_VALUE_EXPRESSION: Final = 5 * 1024
_NEWLINES: Final = re.compile(r"[\n\r]+")
_ONE_REQUIRED: Final = "validations or auditAnnotations must contain at least one item"


def _param_kind(kind: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    api_version = text(kind, "apiVersion")
    if not api_version:
        errors.append(required(f"{path}.apiVersion"))
    elif api_version.count("/") > 1:
        errors.append(invalid(f"{path}.apiVersion", api_version, f"unexpected GroupVersion string: {api_version}"))
    else:
        group, _, version = api_version.rpartition("/")
        if group and is_dns1123_subdomain(group):
            errors.append(invalid(f"{path}.apiVersion", group, ",".join(is_dns1123_subdomain(group))))
        if not version:
            errors.append(invalid(f"{path}.apiVersion", api_version, "version must be specified"))
        elif is_dns1035_label(version):
            errors.append(invalid(f"{path}.apiVersion", version, ",".join(is_dns1035_label(version))))
    name = text(kind, "kind")
    if not name:
        errors.append(required(f"{path}.kind"))
    elif is_dns1035_label(name.lower()):
        detail = "may have mixed case, but should otherwise match: " + ",".join(is_dns1035_label(name.lower()))
        errors.append(invalid(f"{path}.kind", name, detail))
    return errors


def _named_rule(rule: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, name in enumerate(items(lookup(rule, "resourceNames"))):
        where = f"{path}.resourceNames[{index}]"
        errors += [invalid(where, name, message) for message in is_valid_path_segment_name(str(name))]
        if name in seen:
            errors.append(duplicate(where, name))
        seen.add(name)
    return errors + rule_errors(rule, path)


def match_resources_errors(match: Any, path: str) -> list[FieldError]:
    """Upstream's `validateMatchResources`: match policy, both selectors, included and excluded rules."""
    if not isinstance(match, dict):
        return []
    errors: list[FieldError] = []
    policy = match.get("matchPolicy")
    if policy is None:
        errors.append(required(f"{path}.matchPolicy"))
    elif policy not in _MATCH_POLICIES:
        errors.append(not_supported(f"{path}.matchPolicy", policy, _MATCH_POLICIES))
    for key in ("namespaceSelector", "objectSelector"):
        if match.get(key) is None:
            errors.append(required(f"{path}.{key}"))
        else:
            errors += validate_label_selector(match[key], f"{path}.{key}")
    for key in ("resourceRules", "excludeResourceRules"):
        for index, rule in enumerate(items(match.get(key))):
            errors += _named_rule(rule, f"{path}.{key}[{index}]")
    return errors


def _validation(entry: Any, path: str) -> list[FieldError]:
    errors = (
        [] if text(entry, "expression").strip() else [required(f"{path}.expression", "expression is not specified")]
    )
    message_expression = text(entry, "messageExpression")
    if message_expression and not message_expression.strip():
        errors.append(invalid(f"{path}.messageExpression", message_expression, "must be non-empty if specified"))
    message = text(entry, "message")
    if message and not message.strip():
        errors.append(invalid(f"{path}.message", message, "message must be non-empty if specified"))
    elif _NEWLINES.search(message.strip()):
        errors.append(invalid(f"{path}.message", message, "message must not contain line breaks"))
    reason = lookup(entry, "reason")
    if reason is not None and reason not in _REASONS:
        errors.append(not_supported(f"{path}.reason", reason, _REASONS))
    return errors


def _audit_annotations(spec: Any, policy_name: str) -> list[FieldError]:
    annotations = items(lookup(spec, "auditAnnotations"))
    errors: list[FieldError] = []
    if len(annotations) > _MAX_AUDIT_ANNOTATIONS:
        detail = f"must not have more than {_MAX_AUDIT_ANNOTATIONS} auditAnnotations"
        errors.append(invalid("spec.auditAnnotations", annotations, detail))
    keys: set[str] = set()
    for index, annotation in enumerate(annotations):
        path, key = f"spec.auditAnnotations[{index}]", text(annotation, "key")
        if policy_name:
            qualified = f"{policy_name}/{key}"
            errors += [invalid(f"{path}.key", qualified, message) for message in is_qualified_name(qualified)]
        else:
            errors.append(invalid(f"{path}.key", key, "requires metadata.name be non-empty"))
        expression = text(annotation, "valueExpression").strip()
        if not expression:
            errors.append(required(f"{path}.valueExpression", "valueExpression is not specified"))
        elif len(expression) > _MAX_VALUE_EXPRESSION:
            errors.append(
                required(f"{path}.valueExpression", f"must not exceed {_MAX_VALUE_EXPRESSION} bytes in length")
            )
        if key in keys:
            errors.append(duplicate(f"{path}.key", key))
        keys.add(key)
    return errors


def _common_spec(spec: dict[str, Any]) -> list[FieldError]:
    """Failure policy, param kind and match constraints: the same for both policy kinds."""
    errors: list[FieldError] = []
    failure = spec.get("failurePolicy")
    if failure is None:
        errors.append(required("spec.failurePolicy"))
    elif failure not in _FAILURE_POLICIES:
        errors.append(not_supported("spec.failurePolicy", failure, _FAILURE_POLICIES))
    if isinstance(spec.get("paramKind"), dict):
        errors += _param_kind(spec["paramKind"], "spec.paramKind")
    constraints = spec.get("matchConstraints")
    if not isinstance(constraints, dict):
        errors.append(required("spec.matchConstraints"))
    else:
        errors += match_resources_errors(constraints, "spec.matchConstraints")
        if not items(constraints.get("resourceRules")):
            errors.append(required("spec.matchConstraints.resourceRules"))
    return errors


def _policy(obj: Any, _: str) -> list[FieldError]:
    spec = mapping(obj, "spec")
    errors = _common_spec(spec)
    for index, variable in enumerate(items(spec.get("variables"))):
        path = f"spec.variables[{index}]"
        if not text(variable, "name").strip():
            errors.append(required(f"{path}.name", "name is not specified"))
        if not text(variable, "expression").strip():
            errors.append(required(f"{path}.expression", "expression is not specified"))
    validations = items(spec.get("validations"))
    if not validations and not items(spec.get("auditAnnotations")):
        return [*errors, required("spec.validations", _ONE_REQUIRED), required("spec.auditAnnotations", _ONE_REQUIRED)]
    for index, entry in enumerate(validations):
        errors += _validation(entry, f"spec.validations[{index}]")
    return errors + _audit_annotations(spec, text(obj, "metadata.name")) + validating_expression_errors(spec)


_PATCH_TYPES: Final = ("ApplyConfiguration", "JSONPatch")
_REINVOCATION: Final = ("IfNeeded", "Never")
_PATCH_SOURCES: Final = {"ApplyConfiguration": "applyConfiguration", "JSONPatch": "jsonPatch"}


def _mutation(entry: Any, path: str) -> list[FieldError]:
    patch_type = lookup(entry, "patchType")
    if not patch_type:
        return [required(f"{path}.patchType")]
    if patch_type not in _PATCH_TYPES:
        return [not_supported(f"{path}.patchType", patch_type, _PATCH_TYPES)]
    errors: list[FieldError] = []
    for kind, key in _PATCH_SOURCES.items():
        present = isinstance(lookup(entry, key), dict)
        if kind == patch_type and not present:
            errors.append(required(f"{path}.{key}", f"must be specified when patchType is {patch_type}"))
        elif kind != patch_type and present:
            errors.append(forbidden(f"{path}.{key}", f"must not be specified when patchType is {patch_type}"))
        elif present and not text(entry, f"{key}.expression").strip():
            errors.append(required(f"{path}.{key}.expression"))
    return errors


def _mutating_policy(obj: Any, _: str) -> list[FieldError]:
    """What MutatingAdmissionPolicy shares with the validating kind, then its mutations."""
    spec = mapping(obj, "spec")
    errors = _common_spec(spec)
    mutations = items(spec.get("mutations"))
    if not mutations:
        errors.append(required("spec.mutations", "mutations must contain at least one item"))
    for index, entry in enumerate(mutations):
        errors += _mutation(entry, f"spec.mutations[{index}]")
    reinvocation = spec.get("reinvocationPolicy")
    if not reinvocation:
        errors.append(required("spec.reinvocationPolicy"))
    elif reinvocation not in _REINVOCATION:
        errors.append(not_supported("spec.reinvocationPolicy", reinvocation, _REINVOCATION))
    return errors + mutating_expression_errors(spec)


def _mutating_binding(obj: Any, _: str) -> list[FieldError]:
    """A MutatingAdmissionPolicyBinding; a validating binding adds its validation actions."""
    spec = mapping(obj, "spec")
    policy = text(spec, "policyName")
    errors = [] if policy else [required("spec.policyName")]
    errors += [invalid("spec.policyName", policy, message) for message in is_dns1123_subdomain(policy) if policy]
    if isinstance(spec.get("paramRef"), dict):
        errors += _param_ref(spec["paramRef"], "spec.paramRef")
    return errors + match_resources_errors(spec.get("matchResources"), "spec.matchResources")


def _param_ref(ref: Any, path: str) -> list[FieldError]:
    name, selector = text(ref, "name"), lookup(ref, "selector")
    errors: list[FieldError] = []
    if name:
        errors += [invalid(f"{path}.name", name, message) for message in is_valid_path_segment_name(name)]
        if selector is not None:
            errors.append(forbidden(f"{path}.name", "name and selector are mutually exclusive"))
    if selector is not None:
        errors += validate_label_selector(selector, f"{path}.selector")
        if name:
            errors.append(forbidden(f"{path}.selector", "name and selector are mutually exclusive"))
    if not name and selector is None:
        errors.append(required(path, "one of name or selector must be specified"))
    action = lookup(ref, "parameterNotFoundAction")
    if not action:
        errors.append(required(f"{path}.parameterNotFoundAction"))
    elif action not in _NOT_FOUND_ACTIONS:
        errors.append(not_supported(f"{path}.parameterNotFoundAction", action, _NOT_FOUND_ACTIONS))
    return errors


def _actions(actions: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[Any] = set()
    for index, action in enumerate(actions):
        if action not in _ACTIONS:
            errors.append(not_supported(f"{path}[{index}]", action, _ACTIONS))
        if action in seen:
            errors.append(duplicate(f"{path}[{index}]", action))
        seen.add(action)
    if {"Deny", "Warn"} <= seen:
        detail = (
            "must not contain both Deny and Warn (repeating the same validation failure information in the API "
            "response and headers serves no purpose)"
        )
        errors.append(invalid(path, actions, detail))
    if not seen:
        errors.append(required(path, "at least one validation action is required"))
    return errors


def _binding(obj: Any, path: str) -> list[FieldError]:
    spec = mapping(obj, "spec")
    return _mutating_binding(obj, path) + _actions(items(spec.get("validationActions")), "spec.validationActions")


RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): KindRules(create=(Check(_policy),)),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): KindRules(create=(Check(_binding),)),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"): KindRules(create=(Check(_mutating_policy),)),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"): KindRules(create=(Check(_mutating_binding),)),
}
