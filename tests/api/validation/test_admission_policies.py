"""ValidatingAdmissionPolicy and its binding (structure; CEL compilation is the CEL work's): the valid
fixtures pass, and each invalid case yields upstream's (field, reason, detail)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, INVALID, NOT_SUPPORTED, FORBIDDEN = (
    "FieldValueRequired",
    "FieldValueInvalid",
    "FieldValueNotSupported",
    "FieldValueForbidden",
)
GROUP, POLICY, BINDING = "admissionregistration.k8s.io", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"
RULE = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}
POLICY_OBJ = {
    "metadata": {"name": "replicas.example.com"},
    "spec": {
        "failurePolicy": "Fail",
        "paramKind": {"apiVersion": "example.com/v1", "kind": "ReplicaLimit"},
        "matchConstraints": {"resourceRules": [RULE]},
        "validations": [
            {"expression": "object.spec.replicas <= params.max", "reason": "Invalid", "message": "too many"}
        ],
        "auditAnnotations": [{"key": "high-replicas", "valueExpression": "'high'"}],
    },
}
BINDING_OBJ = {
    "metadata": {"name": "replicas-binding"},
    "spec": {
        "policyName": "replicas.example.com",
        "paramRef": {"name": "limits", "parameterNotFoundAction": "Deny"},
        "validationActions": ["Deny", "Audit"],
    },
}


@pytest.mark.parametrize(("kind", "obj"), [(POLICY, POLICY_OBJ), (BINDING, BINDING_OBJ)])
def test_valid_object_passes(kind: str, obj: dict[str, Any]) -> None:
    assert causes(GROUP, kind, obj) == []


INVALID_OBJECTS = [
    (
        "unknown failure policy",
        POLICY,
        with_path(POLICY_OBJ, "spec.failurePolicy", "Retry"),
        [("spec.failurePolicy", NOT_SUPPORTED, 'supported values: "Fail", "Ignore"')],
    ),
    (
        "param kind without a version",
        POLICY,
        with_path(POLICY_OBJ, "spec.paramKind.apiVersion", "example.com/"),
        [("spec.paramKind.apiVersion", INVALID, "version must be specified")],
    ),
    (
        "param kind without a kind",
        POLICY,
        with_path(POLICY_OBJ, "spec.paramKind.kind", ...),
        [("spec.paramKind.kind", REQUIRED, "Required value")],
    ),
    (
        "no match constraints",
        POLICY,
        with_path(POLICY_OBJ, "spec.matchConstraints", ...),
        [("spec.matchConstraints", REQUIRED, "Required value")],
    ),
    (
        "match constraints without resource rules",
        POLICY,
        with_path(POLICY_OBJ, "spec.matchConstraints.resourceRules", []),
        [("spec.matchConstraints.resourceRules", REQUIRED, "Required value")],
    ),
    (
        "match rule with an unknown operation",
        POLICY,
        with_path(POLICY_OBJ, "spec.matchConstraints.resourceRules.0.operations", ["PATCH"]),
        [
            (
                "spec.matchConstraints.resourceRules[0].operations[0]",
                NOT_SUPPORTED,
                'supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
            )
        ],
    ),
    (
        "neither validations nor audit annotations",
        POLICY,
        with_path(with_path(POLICY_OBJ, "spec.validations", []), "spec.auditAnnotations", []),
        [
            ("spec.validations", REQUIRED, "validations or auditAnnotations must contain at least one item"),
            ("spec.auditAnnotations", REQUIRED, "validations or auditAnnotations must contain at least one item"),
        ],
    ),
    (
        "validation without an expression",
        POLICY,
        with_path(POLICY_OBJ, "spec.validations.0.expression", "  "),
        [("spec.validations[0].expression", REQUIRED, "expression is not specified")],
    ),
    (
        "validation message with a line break",
        POLICY,
        with_path(POLICY_OBJ, "spec.validations.0.message", "too\nmany"),
        [("spec.validations[0].message", INVALID, "message must not contain line breaks")],
    ),
    (
        "validation with an unknown reason",
        POLICY,
        with_path(POLICY_OBJ, "spec.validations.0.reason", "Conflict"),
        [("spec.validations[0].reason", NOT_SUPPORTED, 'supported values: "Forbidden", "Invalid"')],
    ),
    (
        "audit annotations with the same key",
        POLICY,
        with_path(POLICY_OBJ, "spec.auditAnnotations.1", {"key": "high-replicas", "valueExpression": "'x'"}),
        [("spec.auditAnnotations[1].key", "FieldValueDuplicate", 'Duplicate value: "high-replicas"')],
    ),
    (
        "binding without a policy",
        BINDING,
        with_path(BINDING_OBJ, "spec.policyName", ...),
        [("spec.policyName", REQUIRED, "Required value")],
    ),
    (
        "param reference with both name and selector",
        BINDING,
        with_path(BINDING_OBJ, "spec.paramRef.selector", {}),
        [
            ("spec.paramRef.name", FORBIDDEN, "name and selector are mutually exclusive"),
            ("spec.paramRef.selector", FORBIDDEN, "name and selector are mutually exclusive"),
        ],
    ),
    (
        "param reference without a not-found action",
        BINDING,
        with_path(BINDING_OBJ, "spec.paramRef.parameterNotFoundAction", ...),
        [("spec.paramRef.parameterNotFoundAction", REQUIRED, "Required value")],
    ),
    (
        "binding without actions",
        BINDING,
        with_path(BINDING_OBJ, "spec.validationActions", []),
        [("spec.validationActions", REQUIRED, "at least one validation action is required")],
    ),
    (
        "binding that both denies and warns",
        BINDING,
        with_path(BINDING_OBJ, "spec.validationActions", ["Deny", "Warn"]),
        [("spec.validationActions", INVALID, "must not contain both Deny and Warn")],
    ),
    (
        "binding with an unknown action",
        BINDING,
        with_path(BINDING_OBJ, "spec.validationActions", ["Block"]),
        [("spec.validationActions[0]", NOT_SUPPORTED, 'supported values: "Audit", "Deny", "Warn"')],
    ),
]


@pytest.mark.parametrize(
    ("kind", "obj", "expected"), [case[1:] for case in INVALID_OBJECTS], ids=[case[0] for case in INVALID_OBJECTS]
)
def test_invalid_object(kind: str, obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(GROUP, kind, obj), expected)
