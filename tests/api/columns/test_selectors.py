from __future__ import annotations

import pytest

from svc.api.columns.selectors import format_labels, format_selector, labels_string, selector_string


def test_labels_are_sorted_by_key() -> None:
    assert format_labels({"tier": "web", "app": "x"}) == "app=x,tier=web"


@pytest.mark.parametrize("labels", [None, {}])
def test_no_labels_format_as_none(labels: object) -> None:
    assert format_labels(labels) == "<none>"
    assert labels_string(labels) == ""


def test_selector_requirements_are_sorted_by_key_and_values_sorted() -> None:
    selector = {
        "matchLabels": {"tier": "web"},
        "matchExpressions": [
            {"key": "env", "operator": "In", "values": ["prod", "dev"]},
            {"key": "zone", "operator": "NotIn", "values": ["b", "a"]},
            {"key": "canary", "operator": "DoesNotExist"},
            {"key": "app", "operator": "Exists"},
        ],
    }
    assert format_selector(selector) == "app,!canary,env in (dev,prod),tier=web,zone notin (a,b)"


@pytest.mark.parametrize("selector", [None, {}, {"matchLabels": {}}])
def test_an_empty_selector_formats_as_none(selector: object) -> None:
    assert format_selector(selector) == "<none>"
    assert selector_string(selector) == ""


@pytest.mark.parametrize(
    "expression",
    [
        {"key": "a", "operator": "Matches", "values": ["x"]},
        {"key": "a", "operator": "In", "values": []},
        {"key": "a", "operator": "Exists", "values": ["x"]},
        {"key": "a", "operator": "In", "values": [1, "x"]},
    ],
)
def test_an_invalid_selector_formats_as_error(expression: dict[str, object]) -> None:
    assert format_selector({"matchExpressions": [expression]}) == "<error>"
    assert selector_string({"matchExpressions": [expression]}) is None
