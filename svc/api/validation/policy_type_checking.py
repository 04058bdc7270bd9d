"""Type checking a ValidatingAdmissionPolicy against the kinds it matches (`status.typeChecking`).

A policy's expressions compile against `dyn` objects when written; this checks each validation's
expression and messageExpression again with `object` and `oldObject` typed by the schema of every
kind its matchConstraints name (wildcards and subresources are not expanded; at most ten kinds),
and `params` by its paramKind's. What fails there is a warning, not an error: the policy still
runs. Each warning names the kind, as upstream prints a GroupVersionKind (`apps/v1, Kind=Deployment`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from svc.api.resources import Resource, ResourceSet
from svc.api.validation.builtin_object_types import object_type
from svc.api.validation.policy_expressions import BASE_VARIABLES, PARAMS, VARIABLES
from svc.machinery.cel import types
from svc.machinery.cel.checker import check_expression
from svc.machinery.cel.types import Type
from svc.machinery.cel.values import CelError

MAX_TYPES_TO_CHECK: Final = 10


def _gvk(resource: Resource) -> str:
    return f"{resource.group}/{resource.version}, Kind={resource.kind}"


def matched_resources(spec: Mapping[str, Any], resources: ResourceSet) -> list[Resource]:
    """The resources named explicitly by the policy's resourceRules, in order, without repeats."""
    found: list[Resource] = []
    constraints = spec.get("matchConstraints") or {}
    for rule in constraints.get("resourceRules") or ():
        for group in rule.get("apiGroups") or ():
            for version in rule.get("apiVersions") or ():
                for name in rule.get("resources") or ():
                    if "*" in (group, version, name) or "/" in name:
                        continue
                    resource = resources.get(group, version, name)
                    if resource is not None and resource not in found:
                        found.append(resource)
    return found[:MAX_TYPES_TO_CHECK]


def _param_type(spec: Mapping[str, Any], resources: ResourceSet) -> Type:
    kind = spec.get("paramKind") or {}
    group, _, version = str(kind.get("apiVersion", "")).rpartition("/")
    resource = resources.for_kind(group, version, str(kind.get("kind", "")))
    found = object_type(resource.definition) if resource is not None else None
    return found or types.DYN


def _declarations(spec: Mapping[str, Any], object_t: Type, param_t: Type | None) -> dict[str, Type]:
    declared: dict[str, Type] = dict.fromkeys(BASE_VARIABLES, types.DYN)
    declared["object"] = declared["oldObject"] = object_t
    if param_t is not None:
        declared[PARAMS] = param_t
    variables: dict[str, Type] = {}
    for variable in spec.get("variables") or ():
        declared[VARIABLES] = types.object_type(VARIABLES, variables)
        try:
            variables[str(variable.get("name"))] = check_expression(str(variable.get("expression")), declared).result
        except CelError:
            variables[str(variable.get("name"))] = types.DYN
    declared[VARIABLES] = types.object_type(VARIABLES, variables)
    return declared


def expression_warnings(spec: Mapping[str, Any], resources: ResourceSet) -> list[dict[str, str]]:
    """`status.typeChecking.expressionWarnings` for a policy's spec."""
    param_t = _param_type(spec, resources) if spec.get("paramKind") else None
    contexts = []
    for resource in matched_resources(spec, resources):
        object_t = object_type(resource.definition)
        if object_t is not None:
            contexts.append((_gvk(resource), _declarations(spec, object_t, param_t)))
    warnings = []
    for index, validation in enumerate(spec.get("validations") or ()):
        for key in ("expression", "messageExpression"):
            expression = validation.get(key)
            if not expression:
                continue
            issues = []
            for gvk, declared in contexts:
                try:
                    check_expression(expression, declared)
                except CelError as err:
                    issues.append(f"{gvk}: {err}")
            if issues:
                warnings.append({"fieldRef": f"spec.validations[{index}].{key}", "warning": "\n".join(issues)})
    return warnings
