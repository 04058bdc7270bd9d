"""KYAML output: cases from sigs.k8s.io/yaml's kyaml tests and from kubectl 1.35's `-o kyaml`."""

from __future__ import annotations

from typing import Any

import pytest

from svc.cli.printers.errors import TemplateError
from svc.cli.printers.kyaml import to_kyaml


def body(data: Any) -> str:
    text = to_kyaml(data)
    assert text.startswith("---\n")
    assert text.endswith("\n")
    return text[4:-1]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (123, "123"), (-123, "-123"), (3.5, "3.5"), (0.0, "0"), (1e21, "1e+21"), (1e-7, "1e-7"), (True, "true"),
        (None, "null"), ("", '""'), ("abc", '"abc"'), ([], "[]"), ({}, "{}"),
        ([1, 2, 3], "[\n  1,\n  2,\n  3,\n]"),
        ({"a": 1, "b": 2}, "{\n  a: 1,\n  b: 2,\n}"),
        ([{"I": 1}, {"I": 2}], "[{\n  I: 1,\n}, {\n  I: 2,\n}]"),
        ([[1, 2], [3]], "[[\n  1,\n  2,\n], [\n  3,\n]]"),
        ([{"e": 5, "f": 6}], '[{\n  e: 5,\n  "f": 6,\n}]'),
        ("This\n is a\n  multi-line\n string",
         '"\\\n   This\\n\\\n  \\ is a\\n\\\n  \\  multi-line\\n\\\n  \\ string\\\n  "'),
        ("\t", '"\t"'), ("\\", '"\\\\"'), ('"', '"\\""'), ("\a", '"\\a"'), ("\x00", '"\\0"'), ("\x1b", '"\\e"'),
        ("\x01", '"\\x01"'), ("\u00a0", '"\\_"'), ("\u2028", '"\\L"'), ("\U000e0001", '"\\U000e0001"'),
        ("\U0010ffff", '"\\U0010ffff"'),
    ],
)  # fmt: skip
def test_values(data: Any, expected: str) -> None:
    assert body(data) == expected


@pytest.mark.parametrize(
    ("key", "quoted"),
    [
        ("NULL", True), ("null", True), ("~", True), ("unambiguous", False), ("ON", True), ("yes", True), ("y", True),
        ("f", True), ("1", True), ("-1", True), ("_1", True), ("__1__2__", True), ("+.inf", True), (".nan", True),
        ("3.14", True), ("1e10", True), ("0x1F", True), ("0o17", True), ("08", True), ("_", False),
        ("_with_underscore_", False), ("with-dash", False), ("with.dot", False), ("with/slash", False),
        ("not safe", True), ("-leading-dash", True), ("trailing.dot.", True), ("/leading/slash", True),
        ("11:00", True), ("1:60", True), ("2006", True), ("2006-1-2", True), ("2006-13-2", False),
        ("2006-02-30", False), ("2006-1-2T15:4:5.999999999-08:00", True), ("2006-1-2 14:4:5", True),
        ("123456789012345678901234567890", True), ("1e400", False), ("inf", True), ("-Infinity", True),
        ("é", False), ("1ab", False), ("12:30:45", True), ("1_000", True),
    ],
)  # fmt: skip
def test_key_quoting(key: str, quoted: bool) -> None:
    line = body({key: 1}).splitlines()[1]
    assert line == (f'  "{key}": 1,' if quoted else f"  {key}: 1,")


def test_multi_line_key_is_quoted_on_one_line() -> None:
    assert body({"1\n 2": 1}) == '{\n  "1\\n 2": 1,\n}'


def test_configmap_as_kubectl_prints_it() -> None:
    configmap = {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": "x"},
        "data": {"a": "b", "multi": "line1\nline2\n  indented\n", "n": "123", "yes": "no"},
    }
    assert to_kyaml(configmap) == (
        "---\n{\n"
        '  kind: "ConfigMap",\n  apiVersion: "v1",\n  metadata: {\n    name: "x",\n  },\n'
        '  data: {\n    a: "b",\n    multi: "\\\n       line1\\n\\\n       line2\\n\\\n'
        '      \\  indented\\n\\\n      ",\n    "n": "123",\n    "yes": "no",\n  },\n}\n'
    )


def test_nel_folds_like_yamls_line_break() -> None:
    assert body(["a \x85 b", "a\x85\x85b"]) == '[\n  "a b",\n  "\\\n     a\\n\\\n     b\\\n    ",\n]'


def test_characters_yaml_cannot_read_fail_as_kubectl_does() -> None:
    with pytest.raises(TemplateError, match="error decoding: yaml: control characters are not allowed"):
        to_kyaml({"a": "x\x7f"})
