"""The OpenAPI `duration` format as kube-openapi's strfmt reads it: Go durations, then unit words."""

from __future__ import annotations

import pytest

from svc.api.crd.formats import format_check
from svc.machinery.cel.openapi_duration import parse_openapi_duration
from svc.machinery.cel.values import CelError

SECOND = 1_000_000_000
DAY = 86400 * SECOND


@pytest.mark.parametrize(
    ("text", "nanos"),
    [
        ("1h30m", 5400 * SECOND),
        ("-1.5s", -1_500_000_000),
        ("1d", DAY),
        ("2w", 14 * DAY),
        ("3 days", 3 * DAY),
        ("90 sec", 90 * SECOND),
        ("1h 30min", 5400 * SECOND),
        ("2HOURS", 7200 * SECOND),
        ("5 micro", 5_000),
        ("1d 5x", DAY),
    ],
)
def test_strfmt_reads_go_durations_and_unit_words(text: str, nanos: int) -> None:
    assert parse_openapi_duration(text) == nanos


@pytest.mark.parametrize("text", ["", "1", "d", "1x", "-1d", "1.5d", "soon"])
def test_strings_without_a_known_unit_are_not_durations(text: str) -> None:
    with pytest.raises(CelError, match="as duration"):
        parse_openapi_duration(text)


def test_the_duration_format_of_a_schema_accepts_days() -> None:
    check = format_check("duration")
    assert check is not None
    assert check("1d") and check("12h")
    assert not check("one day")
