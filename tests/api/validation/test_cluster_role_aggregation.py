"""A ClusterRole's aggregationRule needs at least one valid cluster role selector."""

from __future__ import annotations

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_more_kinds import CLUSTER_ROLE, RBAC

SELECTORS = "aggregationRule.clusterRoleSelectors"


def test_an_aggregation_rule_with_a_selector_passes() -> None:
    role = with_path(CLUSTER_ROLE, SELECTORS, [{"matchLabels": {"rbac.example.com/aggregate-to-view": "true"}}])
    assert causes(RBAC, "ClusterRole", role) == []


def test_an_empty_aggregation_rule_is_required_to_select() -> None:
    found = causes(RBAC, "ClusterRole", with_path(CLUSTER_ROLE, "aggregationRule", {}))
    assert_causes(found, [(SELECTORS, "FieldValueRequired", "at least one clusterRoleSelector required")])


def test_an_invalid_selector_is_refused() -> None:
    selector = {"matchExpressions": [{"key": "tier", "operator": "Near", "values": ["a"]}]}
    found = causes(RBAC, "ClusterRole", with_path(CLUSTER_ROLE, SELECTORS, [selector]))
    assert_causes(
        found,
        [
            (f"{SELECTORS}[0].matchExpressions[0].operator", "FieldValueInvalid", "not a valid selector operator"),
            (f"{SELECTORS}[0]", "FieldValueInvalid", "invalid label selector."),
        ],
    )
