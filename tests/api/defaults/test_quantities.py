"""Resource lists: upstream's SetDefaults_ResourceList rounds each quantity up to a whole milli-unit
(resource.Quantity.RoundUp(-3)) and the decoder writes it back in canonical form."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.api.defaults.quantities import round_resource_list


def _rounded(values: dict[str, Any]) -> dict[str, Any]:
    holder = {"list": dict(values)}
    round_resource_list(holder, "list")
    return holder["list"]


@pytest.mark.parametrize(
    ("given_text", "expected"),
    [
        ("100u", "1m"),
        ("1500u", "2m"),
        ("0.0001", "1m"),
        ("0.5", "500m"),
        ("1000m", "1"),
        ("1024Mi", "1Gi"),
        ("128Mi", "128Mi"),
        ("1e3", "1e3"),
        ("2", "2"),
    ],
)
def test_quantities_are_rounded_to_millis_in_canonical_form(given_text: str, expected: str) -> None:
    assert _rounded({"cpu": given_text}) == {"cpu": expected}


def test_bare_numbers_are_quantities_too() -> None:
    assert _rounded({"cpu": 1, "memory": 0.5}) == {"cpu": "1", "memory": "500m"}


@pytest.mark.parametrize("value", [1e308, "1e308"])
def test_a_huge_quantity_is_rounded_not_raised(value: Any) -> None:
    """Found by tests/fuzz: `cpu: 1e308` in a pod's requests was a 500 (decimal's 28 digits)."""
    resources: dict[str, Any] = {"requests": {"cpu": value}}
    round_resource_list(resources, "requests")
    assert resources["requests"]["cpu"] == "100e306"


def test_text_that_is_not_a_quantity_is_left_for_validation() -> None:
    assert _rounded({"cpu": "lots", "memory": None}) == {"cpu": "lots", "memory": None}


_QUANTITY = st.from_regex(r"[+-]?[0-9]{1,7}(\.[0-9]{1,6})?(n|u|m|k|M|G|Ki|Mi|Gi|e[0-9])?", fullmatch=True)


@given(st.dictionaries(st.sampled_from(["cpu", "memory", "pods", "hugepages-2Mi"]), _QUANTITY, max_size=4))
def test_rounding_is_idempotent(values: dict[str, str]) -> None:
    once = _rounded(values)
    assert _rounded(once) == once
