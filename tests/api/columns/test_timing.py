from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.api.columns import timing
from tests.api.columns.support import NOW, ago, micro_ago

SECOND = timedelta(seconds=1)
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
YEAR = 365 * DAY
TICK = timedelta(milliseconds=1)


@pytest.mark.parametrize(
    ("delta", "expected"),
    [
        (-2 * SECOND, "<invalid>"),
        (-2 * SECOND + timedelta(microseconds=1), "0s"),
        (timedelta(0), "0s"),
        (SECOND - TICK, "0s"),
        (SECOND, "1s"),
        (70 * SECOND, "70s"),
        (2 * MINUTE - TICK, "119s"),
        (2 * MINUTE, "2m"),
        (2 * MINUTE + SECOND, "2m1s"),
        (190 * SECOND, "3m10s"),
        (10 * MINUTE - TICK, "9m59s"),
        (10 * MINUTE + SECOND, "10m"),
        (70 * MINUTE, "70m"),
        (3 * HOUR - TICK, "179m"),
        (3 * HOUR, "3h"),
        (3 * HOUR + MINUTE, "3h1m"),
        (8 * HOUR - TICK, "7h59m"),
        (8 * HOUR + 59 * MINUTE, "8h"),
        (47 * HOUR, "47h"),
        (2 * DAY, "2d"),
        (49 * HOUR, "2d1h"),
        (8 * DAY - TICK, "7d23h"),
        (8 * DAY + 2 * HOUR, "8d"),
        (367 * DAY, "367d"),
        (2 * YEAR - TICK, "729d"),
        (2 * YEAR + DAY - TICK, "2y"),
        (2 * YEAR + 25 * HOUR, "2y1d"),
        (8 * YEAR + 2 * HOUR, "8y"),
    ],
)
def test_human_duration_matches_upstream_thresholds(delta: timedelta, expected: str) -> None:
    assert timing.human_duration(delta) == expected


@given(st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=365 * 20)))
def test_human_duration_of_a_positive_span_is_never_invalid(delta: timedelta) -> None:
    written = timing.human_duration(delta)
    assert written[0].isdigit()
    assert written[-1] in "smhdy"


def test_since_measures_against_the_clock() -> None:
    assert timing.since(ago(minutes=5)) == "5m"


def test_since_reads_micro_time() -> None:
    assert timing.since(micro_ago(seconds=42)) == "42s"


@pytest.mark.parametrize("value", [None, "", "yesterday", 7])
def test_since_an_unset_or_unreadable_timestamp_is_unknown(value: object) -> None:
    assert timing.since(value) == "<unknown>"


def test_a_timestamp_in_the_future_is_invalid() -> None:
    future = (NOW + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert timing.since(future) == "<invalid>"


def test_age_reads_the_creation_timestamp() -> None:
    assert timing.age({"metadata": {"creationTimestamp": ago(days=3, hours=4)}}) == "3d4h"
    assert timing.age({"metadata": {"creationTimestamp": None}}) == "<unknown>"
