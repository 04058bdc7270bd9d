"""Go's printing of JSON-decoded values (fmt, strconv, encoding/json), checked against Go's own output."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.cli.printers.goformat import GoInt, format_float, go_syntax, json_marshal, sprint, sprint_value, sprintf


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1e6, "1e+06"), (123456.0, "123456"), (1234567.0, "1.234567e+06"), (1e-5, "1e-05"), (0.0001, "0.0001"),
     (1e21, "1e+21"), (3.0, "3"), (-2.5, "-2.5"), (0.0, "0")],
)  # fmt: skip
def test_float_v_verb(value: float, expected: str) -> None:
    assert sprint_value(value) == expected


def test_go_syntax_of_nested_values() -> None:
    assert go_syntax([None, 1.0, 2, "a\n"]) == '[]interface {}{interface {}(nil), 1, 2, "a\\n"}'
    assert (
        go_syntax({"b": {}, "a": []}) == 'map[string]interface {}{"a":[]interface {}{}, "b":map[string]interface {}{}}'
    )


@pytest.mark.parametrize(
    ("template", "args", "expected"),
    [
        ("%05d|%-5d|%+d|%x|%X|%#x|%o|%b|%c|%q|%U", [42, 42, 42, 255, 255, 255, 8, 5, 65, 65, 65],
         "00042|42   |+42|ff|FF|0xff|10|101|A|'A'|U+0041"),
        ("%5.1f|%e|%g|%.3g|%G|%08.3f|%+.2e", [3.14159, 1234.5678, 1234.5678, 1234.5678, 1e-7, -3.14159, 12345.678],
         "  3.1|1.234568e+03|1234.5678|1.23e+03|1E-07|-003.142|+1.23e+04"),
        ("%5s|%-5s|%.2s|%q|%x|%X|% x|%5t|%v|%d|%s",
         ["ab", "ab", "abc", 'a"b', "hi", "hi", "hi", True, None, None, True],
         '   ab|ab   |ab|"a\\"b"|6869|6869|68 69| true|<nil>|%!d(<nil>)|%!s(bool=true)'),
        ("%10v|%-10v|", [[GoInt(1), "a"], {"a": GoInt(1)}], "[         1          a]|map[a         :1         ]|"),
        ("%6.2v|%.2v|%q|%d|%v", [3.14159, "abc", ["a", 1], ["a", 1], {}],
         "   3.1|ab|[\"a\" '\\x01']|[%!d(string=a) 1]|map[]"),
        ("100%%", [], "100%"),
        ("%d", [], "%!d(MISSING)"),
        ("%d", [1, "x"], "1%!(EXTRA string=x)"),
    ],
)  # fmt: skip
def test_sprintf_matches_go(template: str, args: list[object], expected: str) -> None:
    assert sprintf(template, args) == expected


def test_sprint_spaces_only_between_non_strings() -> None:
    assert sprint(["a", 1, 2, "b", 3.0, None, True]) == "a1 2b3 <nil> true"


def test_json_marshal_sorts_keys_and_escapes_html() -> None:
    value = {"b": [1, 2.5, 1e6, 1e-7, 1e21], "a": "x<y&z\u2028", "c": {}}
    assert json_marshal(value) == '{"a":"x\\u003cy\\u0026z\\u2028","b":[1,2.5,1000000,1e-7,1e+21],"c":{}}'


def test_json_marshal_indent_like_marshal_indent() -> None:
    assert json_marshal({"a": [1, {}]}, "    ") == '{\n    "a": [\n        1,\n        {}\n    ]\n}'


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_shortest_float_forms_round_trip(value: float) -> None:
    for verb in "efg":
        assert float(format_float(value, verb)) == value or (value == 0 and math.copysign(1, value) < 0)
