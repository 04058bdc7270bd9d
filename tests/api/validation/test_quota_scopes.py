"""ResourceQuota scopes fit the resources they limit; scopeSelector requirements as upstream checks them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_core_kinds import QUOTA

INVALID, REQUIRED = "FieldValueInvalid", "FieldValueRequired"
EXPRESSIONS = "spec.scopeSelector.matchExpressions"


def test_a_priority_class_selector_passes() -> None:
    selector = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}
    assert causes("", "ResourceQuota", with_path(QUOTA, "spec.scopeSelector", selector)) == []


def test_best_effort_scope_only_counts_pods() -> None:
    found = causes("", "ResourceQuota", with_path(QUOTA, "spec.scopes", ["BestEffort"]))
    assert_causes(found, [("spec.scopes", INVALID, "unsupported scope applied to resource")])


@pytest.mark.parametrize(
    ("requirement", "expected"),
    [
        (
            {"scopeName": "Terminating", "operator": "In", "values": ["x"]},
            [(f"{EXPRESSIONS}.operator", INVALID, "must be 'Exist' when scope is any of")],
        ),
        (
            {"scopeName": "PriorityClass", "operator": "In"},
            [(f"{EXPRESSIONS}.values", REQUIRED, "must be at least one value when `operator` is 'In' or 'NotIn'")],
        ),
        (
            {"scopeName": "PriorityClass", "operator": "Exists", "values": ["high"]},
            [(f"{EXPRESSIONS}.values", INVALID, "must be no value when `operator` is 'Exist' or 'DoesNotExist'")],
        ),
        (
            {"scopeName": "Sometimes", "operator": "Exists"},
            [(f"{EXPRESSIONS}.scopeName", INVALID, "unsupported scope")],
        ),
    ],
)
def test_invalid_scope_selector_requirements(requirement: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    quota = with_path(QUOTA, "spec.scopeSelector", {"matchExpressions": [requirement]})
    assert_causes(causes("", "ResourceQuota", quota), expected)


def test_conflicting_scopes_in_a_selector() -> None:
    requirements = [{"scopeName": name, "operator": "Exists"} for name in ("Terminating", "NotTerminating")]
    quota = with_path(QUOTA, "spec.scopeSelector", {"matchExpressions": requirements})
    assert_causes(causes("", "ResourceQuota", quota), [(EXPRESSIONS, INVALID, "conflicting scopes")])
