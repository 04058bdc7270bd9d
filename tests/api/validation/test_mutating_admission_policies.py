"""MutatingAdmissionPolicy and its binding (structure; CEL compilation is the CEL work's): the valid
fixtures pass, and each invalid case yields upstream's (field, reason, detail)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, NOT_SUPPORTED = "FieldValueRequired", "FieldValueNotSupported"
GROUP, POLICY, BINDING = "admissionregistration.k8s.io", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"
RULE = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}
MUTATION = {
    "patchType": "ApplyConfiguration",
    "applyConfiguration": {"expression": "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"},
}
POLICY_OBJ = {
    "metadata": {"name": "labels.example.com"},
    "spec": {"matchConstraints": {"resourceRules": [RULE]}, "mutations": [MUTATION], "reinvocationPolicy": "Never"},
}
BINDING_OBJ = {"metadata": {"name": "labels-binding"}, "spec": {"policyName": "labels.example.com"}}


@pytest.mark.parametrize(("kind", "obj"), [(POLICY, POLICY_OBJ), (BINDING, BINDING_OBJ)])
def test_valid_object_passes(kind: str, obj: dict[str, Any]) -> None:
    assert causes(GROUP, kind, obj) == []


INVALID_OBJECTS = [
    (
        "policy with an empty spec (failurePolicy defaults to Fail)",
        POLICY,
        with_path(POLICY_OBJ, "spec", {}),
        [
            ("spec.matchConstraints", REQUIRED, "Required value"),
            ("spec.mutations", REQUIRED, "mutations must contain at least one item"),
            ("spec.reinvocationPolicy", REQUIRED, "Required value"),
        ],
    ),
    (
        "policy matching no resource rules",
        POLICY,
        with_path(POLICY_OBJ, "spec.matchConstraints.resourceRules", []),
        [("spec.matchConstraints.resourceRules", REQUIRED, "Required value")],
    ),
    (
        "policy with an unknown failure policy",
        POLICY,
        with_path(POLICY_OBJ, "spec.failurePolicy", "other"),
        [("spec.failurePolicy", NOT_SUPPORTED, 'Unsupported value: "other": supported values: "Fail", "Ignore"')],
    ),
    (
        "mutation without a patch type",
        POLICY,
        with_path(POLICY_OBJ, "spec.mutations.0.patchType", ...),
        [("spec.mutations[0].patchType", REQUIRED, "Required value")],
    ),
    (
        "mutation with an unknown patch type",
        POLICY,
        with_path(POLICY_OBJ, "spec.mutations.0.patchType", "other"),
        [
            (
                "spec.mutations[0].patchType",
                NOT_SUPPORTED,
                'Unsupported value: "other": supported values: "ApplyConfiguration", "JSONPatch"',
            )
        ],
    ),
    (
        "binding without a policy name",
        BINDING,
        with_path(BINDING_OBJ, "spec.policyName", ...),
        [("spec.policyName", REQUIRED, "Required value")],
    ),
]


@pytest.mark.parametrize(
    ("kind", "obj", "expected"), [case[1:] for case in INVALID_OBJECTS], ids=[case[0] for case in INVALID_OBJECTS]
)
def test_invalid_object(kind: str, obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(GROUP, kind, obj), expected)
