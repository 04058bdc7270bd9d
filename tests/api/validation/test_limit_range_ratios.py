"""LimitRange `maxLimitRequestRatio`: at least 1, at most max/min; non-overcommitable defaults match."""

from __future__ import annotations

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_core_kinds import LIMIT_RANGE

INVALID = "FieldValueInvalid"
RATIO = "spec.limits.0.maxLimitRequestRatio"


def test_a_ratio_within_max_over_min_passes() -> None:
    assert causes("", "LimitRange", with_path(LIMIT_RANGE, RATIO, {"cpu": "20"})) == []


@pytest.mark.parametrize(
    ("ratio", "detail"),
    [
        ("500m", "ratio 500m is less than 1"),
        ("21", "ratio 21 is greater than max/min = 20.000000"),
    ],
)
def test_ratio_out_of_bounds(ratio: str, detail: str) -> None:
    found = causes("", "LimitRange", with_path(LIMIT_RANGE, RATIO, {"cpu": ratio}))
    assert_causes(found, [("spec.limits[0].maxLimitRequestRatio[cpu]", INVALID, detail)])


def test_non_overcommitable_default_must_equal_default_request() -> None:
    limit = {"type": "Container", "default": {"nvidia.com/gpu": "2"}, "defaultRequest": {"nvidia.com/gpu": "1"}}
    found = causes("", "LimitRange", with_path(LIMIT_RANGE, "spec.limits", [limit]))
    assert_causes(
        found,
        [
            (
                "spec.limits[0].defaultRequest[nvidia.com/gpu]",
                INVALID,
                "default value 2 must equal to defaultRequest value 1 in nvidia.com/gpu",
            )
        ],
    )
