"""Go's `%T`, `%v`, `%#v`, kind classification and json.Marshal of decoded JSON values."""

from __future__ import annotations

from typing import Any

import pytest

from svc.machinery.gotext.values import (
    GoByte,
    GoInt,
    basic_kind,
    format_sharp_v,
    format_v,
    json_marshal,
    type_name,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1e6, "1e+06"), (123456.0, "123456"), (1234567.0, "1.234567e+06"), (1e-5, "1e-05"), (0.0001, "0.0001"),
     (1e21, "1e+21"), (3.0, "3"), (-2.5, "-2.5"), (0.0, "0")],
)  # fmt: skip
def test_float_v_verb(value: float, expected: str) -> None:
    assert format_v(value) == expected


def test_percent_v_and_sharp_v_of_containers() -> None:
    assert format_v({"b": [1, "x"], "a": None}) == "map[a:<nil> b:[1 x]]"
    assert format_sharp_v({"a": ["x"]}) == 'map[string]interface {}{"a":[]interface {}{"x"}}'


def test_go_syntax_of_nested_values() -> None:
    assert format_sharp_v([None, 1.0, 2, "a\n"]) == '[]interface {}{interface {}(nil), 1, 2, "a\\n"}'
    assert (
        format_sharp_v({"b": {}, "a": []})
        == 'map[string]interface {}{"a":[]interface {}{}, "b":map[string]interface {}{}}'
    )


def test_sharp_v_of_a_nil_operand_is_plain_nil() -> None:
    assert format_sharp_v(None) == "<nil>"


@pytest.mark.parametrize(
    ("value", "name"),
    [(None, "<nil>"), (True, "bool"), (1, "int64"), (GoInt(1), "int"), (GoByte(1), "uint8"), (1.0, "float64"),
     ("", "string"), ({}, "map[string]interface {}"), ([], "[]interface {}")],
)  # fmt: skip
def test_type_names_are_go_percent_t(value: Any, name: str) -> None:
    assert type_name(value) == name


@pytest.mark.parametrize(
    ("value", "kind"),
    [(True, "bool"), (GoByte(1), "uint"), (1, "int"), (GoInt(1), "int"), (1.5, "float"), ("x", "string"),
     (None, "invalid"), ({}, "invalid"), ([], "invalid")],
)  # fmt: skip
def test_basic_kinds_follow_go_reflect_kinds(value: Any, kind: str) -> None:
    assert basic_kind(value) == kind


def test_json_marshal_sorts_keys_and_escapes_html() -> None:
    value = {"b": [1, 2.5, 1e6, 1e-7, 1e21], "a": "x<y&z\u2028", "c": {}}
    assert json_marshal(value) == '{"a":"x\\u003cy\\u0026z\\u2028","b":[1,2.5,1000000,1e-7,1e+21],"c":{}}'


def test_json_escapes_html_and_control_characters_like_go() -> None:
    assert json_marshal({"b": "<&>", "a": "\x01\n"}) == '{"a":"\\u0001\\n","b":"\\u003c\\u0026\\u003e"}'


def test_json_marshal_indent_like_marshal_indent() -> None:
    assert json_marshal({"a": [1, {}]}, "    ") == '{\n    "a": [\n        1,\n        {}\n    ]\n}'


def test_json_marshal_spells_strings_as_json_iterator_when_asked() -> None:
    assert json_marshal({"\b": "\f"}, jsoniter=True) == '{"\\u0008":"\\u000c"}'


@pytest.mark.parametrize("number", [float("nan"), float("inf")])
def test_json_rejects_non_finite_floats(number: float) -> None:
    with pytest.raises(ValueError, match=r"^json: unsupported value: [+]?(NaN|Inf)$"):
        json_marshal([number])


def test_json_rejects_values_without_a_json_form() -> None:
    with pytest.raises(TypeError, match="json: unsupported type: set"):
        json_marshal({1})
