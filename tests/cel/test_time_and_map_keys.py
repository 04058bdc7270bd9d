"""Timestamps and durations keep cel-go's nanoseconds; maps keep the keys `true` and `1` apart."""

from __future__ import annotations

import copy
import pickle

import pytest

from svc.machinery.cel import CelError, Environment
from svc.machinery.cel.values import NANOS, TRUE_KEY, Duration, Timestamp

ENV = Environment(["x"])


def run(expression: str, **variables: object) -> object:
    return ENV.compile(expression).evaluate(variables)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("string(timestamp('2009-02-13T23:31:30.000000001Z'))", "2009-02-13T23:31:30.000000001Z"),
        ("string(timestamp('0001-01-01T00:00:00Z'))", "0001-01-01T00:00:00Z"),
        ("string(timestamp('2009-02-13T23:31:30.5+01:00'))", "2009-02-13T22:31:30.5Z"),
        ("string(duration('1ns'))", "0.000000001s"),
        ("string(duration('-1.5s'))", "-1.5s"),
        ("string(duration('1h1m'))", "3660s"),
        ("string(timestamp('2009-02-13T23:31:30.999999999Z') + duration('1ns'))", "2009-02-13T23:31:31Z"),
        ("string(timestamp('2009-02-13T23:31:30Z') - timestamp('2009-02-13T23:31:29.999999999Z'))", "0.000000001s"),
    ],
)
def test_times_keep_nanoseconds(expression: str, expected: str) -> None:
    assert run(expression) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # Go's int64(d.Hours()) rounds toward zero, for negative durations too
        ("duration('-3730s').getHours()", -1),
        ("duration('-3730s').getMinutes()", -62),
        ("duration('-1.5s').getMilliseconds()", -500),
        ("timestamp('2009-02-13T23:31:30.123999999Z').getMilliseconds()", 123),
        ("int(timestamp('1969-12-31T23:59:59.5Z'))", -1),
        ("timestamp('2009-02-13T23:31:30Z').getHours('+01:30')", 1),
    ],
)
def test_time_accessors_read_the_integer_nanoseconds(expression: str, expected: int) -> None:
    assert run(expression) == expected


def test_a_timestamp_is_a_nanosecond_int_of_its_own_type() -> None:
    moment = run("timestamp('1970-01-01T00:00:01.000000002Z')")
    assert type(moment) is Timestamp
    assert moment == NANOS + 2
    assert run("x == timestamp(1)", x=Timestamp(NANOS)) is True


@pytest.mark.parametrize(
    "expression",
    [
        "timestamp('9999-12-31T23:59:59.999999999Z') + duration('1ns')",
        "timestamp('0001-01-01T00:00:00Z') - duration('1ns')",
        "duration('9223372036s') + duration('1s')",
        "-(duration('-9223372036s') - duration('0.854775808s'))",
    ],
)
def test_results_outside_cel_gos_ranges_are_range_errors(expression: str) -> None:
    with pytest.raises(CelError, match="out of range"):
        run(expression)


def test_a_duration_and_an_int_never_compare_equal() -> None:
    assert run("x == 5", x=Duration(5)) is False


def test_map_keys_true_and_one_are_distinct() -> None:
    assert run("size({true: 'a', 1: 'b'})") == 2
    assert run("{true: 'a', 1: 'b'}[true] + {true: 'a', 1: 'b'}[1]") == "ab"
    assert run("1 in {true: 'a'}") is False
    assert run("{true: 'a'} == {1: 'a'}") is False


def test_bool_keys_come_back_as_bools_when_iterated() -> None:
    assert run("{true: 1, 1: 2}.map(k, k)") == [True, 1]
    assert run("{false: 1}.exists(k, k == false)") is True


def test_a_repeated_bool_key_is_refused() -> None:
    with pytest.raises(CelError, match="Failed with repeated key"):
        run("{true: 1, true: 2}")


def test_stored_bool_keys_survive_copies() -> None:
    assert copy.deepcopy(TRUE_KEY) is TRUE_KEY
    assert pickle.loads(pickle.dumps(TRUE_KEY)) is TRUE_KEY
