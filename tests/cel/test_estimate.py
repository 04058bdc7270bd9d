"""Static cost estimates of CRD rules, sized by the schema, with upstream's limit and message."""

from __future__ import annotations

import pytest

from svc.machinery.cel.checker import check_expression
from svc.machinery.cel.estimate import (
    STATIC_ESTIMATED_COST_LIMIT,
    CostEstimateError,
    check_estimated_cost,
    cost_error_message,
    estimate,
)
from svc.machinery.cel.schema_types import schema_type

SCHEMA = {
    "type": "object",
    "properties": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "bounded": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 20}},
        "replicas": {"type": "integer"},
    },
}
SELF = {"self": schema_type(SCHEMA)}
NESTED = "self.{0}.all(x, self.{0}.exists(y, x == y))"


def cost_of(rule: str) -> int:
    return estimate(check_expression(rule, SELF))


def test_a_scalar_comparison_costs_its_selections_and_the_operator() -> None:
    assert cost_of("self.replicas > 1") == 3


def test_a_loop_over_a_bounded_list_is_priced_by_maxitems() -> None:
    assert cost_of(NESTED.format("bounded")) < cost_of(NESTED.format("tags")) // 1000


def test_a_nested_loop_over_an_unbounded_list_is_refused_with_upstreams_message() -> None:
    with pytest.raises(CostEstimateError) as caught:
        check_estimated_cost(check_expression(NESTED.format("tags"), SELF))
    assert str(caught.value) == (
        "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding "
        "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )


def test_a_bounded_rule_passes_and_reports_its_estimate() -> None:
    assert check_estimated_cost(check_expression(NESTED.format("bounded"), SELF)) > 0


@pytest.mark.parametrize(
    ("cost", "shown"),
    [(12_000_000, "1.200000x"), (25_000_000, "2.5x"), (2_000_000_000, "more than 100x")],
)
def test_the_factor_is_formatted_as_upstream_formats_it(cost: int, shown: str) -> None:
    message = cost_error_message("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT)
    assert message.startswith(f"estimated rule cost exceeds budget by factor of {shown} (")
