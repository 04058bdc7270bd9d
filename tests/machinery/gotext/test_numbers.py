"""strconv's float and boolean texts and encoding/json's float form, checked against Go's output."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.machinery.gotext.numbers import format_float, json_float, parse_bool


@pytest.mark.parametrize(
    ("number", "text"), [(1e6, "1e+06"), (100000.0, "100000"), (1.5, "1.5"), (1e-5, "1e-05"), (-0.0, "-0")]
)
def test_percent_v_of_floats_switches_to_exponent_like_go(number: float, text: str) -> None:
    assert format_float(number) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_shortest_float_forms_round_trip(value: float) -> None:
    for verb in "efg":
        assert float(format_float(value, verb)) == value or (value == 0 and math.copysign(1, value) < 0)


@pytest.mark.parametrize(
    ("number", "text"),
    [(1.0, "1"), (0.5, "0.5"), (1e-7, "1e-7"), (1e21, "1e+21"), (123456789.0, "123456789"), (2.5e-5, "0.000025")],
)
def test_json_floats_use_go_encoding_json_forms(number: float, text: str) -> None:
    assert json_float(number) == text


@pytest.mark.parametrize(("number", "text"), [(math.nan, "NaN"), (math.inf, "+Inf"), (-math.inf, "-Inf")])
def test_json_float_spells_non_finite_values_as_strconv_does(number: float, text: str) -> None:
    assert json_float(number) == text


@pytest.mark.parametrize(("text", "value"), [(t, True) for t in ("1", "t", "T", "true", "TRUE", "True")])
def test_parse_bool_accepts_go_true_spellings(text: str, value: bool) -> None:
    assert parse_bool(text) is value


@pytest.mark.parametrize("text", ["0", "f", "F", "false", "FALSE", "False"])
def test_parse_bool_accepts_go_false_spellings(text: str) -> None:
    assert parse_bool(text) is False


@pytest.mark.parametrize("text", ["tRUE", "fAlse", "yes", "", " true", "2"])
def test_parse_bool_rejects_other_spellings_with_go_message(text: str) -> None:
    with pytest.raises(ValueError, match="invalid syntax") as caught:
        parse_bool(text)
    assert str(caught.value) == f'strconv.ParseBool: parsing "{text}": invalid syntax'


def test_parse_bool_message_quotes_the_text_like_go() -> None:
    with pytest.raises(ValueError, match=r'^strconv.ParseBool: parsing "a\\"\\n": invalid syntax$'):
        parse_bool('a"\n')
