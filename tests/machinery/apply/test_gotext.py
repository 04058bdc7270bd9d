"""Go renderings of JSON values used in field paths and messages."""

from __future__ import annotations

import pytest

from svc.machinery.apply import gotext


@pytest.mark.parametrize(
    ("number", "text"),
    [(1.0, "1"), (0.5, "0.5"), (1e-7, "1e-7"), (1e21, "1e+21"), (123456789.0, "123456789"), (2.5e-5, "0.000025")],
)
def test_json_floats_use_go_encoding_json_forms(number: float, text: str) -> None:
    assert gotext.json_value(number) == text


def test_json_escapes_html_and_control_characters_like_go() -> None:
    assert gotext.json_value({"b": "<&>", "a": "\x01\n"}) == '{"a":"\\u0001\\n","b":"\\u003c\\u0026\\u003e"}'


def test_json_rejects_non_finite_floats() -> None:
    with pytest.raises(ValueError, match="unsupported float"):
        gotext.json_value(float("nan"))


@pytest.mark.parametrize(
    ("number", "text"), [(1e6, "1e+06"), (100000.0, "100000"), (1.5, "1.5"), (1e-5, "1e-05"), (-0.0, "-0")]
)
def test_percent_v_of_floats_switches_to_exponent_like_go(number: float, text: str) -> None:
    assert gotext.format_float_g(number) == text


def test_percent_q_escapes_unprintable_characters() -> None:
    assert gotext.quote('a"b\\\x7f\u200b\U0001f600é') == '"a\\"b\\\\\\x7f\\u200b\U0001f600é"'


def test_percent_v_and_sharp_v_of_containers() -> None:
    assert gotext.format_v({"b": [1, "x"], "a": None}) == "map[a:<nil> b:[1 x]]"
    assert gotext.format_sharp_v({"a": ["x"]}) == 'map[string]interface {}{"a":[]interface {}{"x"}}'
