"""Schema `pattern`s are Go regular expressions (kube-openapi compiles them with Go's `regexp`):
RE2 syntax and meaning, checked on the same RE2 engine as CEL's `matches`."""

from __future__ import annotations

import pytest

from svc.api.crd.value_validation import compile_schema
from svc.api.validation.crd_structural import validate_structural


def matches(pattern: str, text: str) -> bool:
    node = compile_schema({"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}})
    return not node.validate({"s": text})


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        (r"^[a-z]+\z", "abc", True),
        (r"^[[:alpha:]][[:digit:]]+$", "a12", True),
        (r"^[[:alpha:]][[:digit:]]+$", "1a2", False),
        (r"^[[:^alpha:]]+$", "12", True),
        (r"^\p{L}+$", "héllo", True),
        (r"^\p{L}+$", "h3llo", False),
        (r"^\pL\PN$", "ab", True),
        (r"^\p{Greek}+$", "αβγ", True),
        (r"^\p{Greek}+$", "abc", False),
        (r"^[a-z]+$", "abc\n", False),
        (r"^[a-z$]+$", "a$", True),
        (r"(?m)^[a-z]+$", "abc\nd", True),
        (r"^\d+$", "\u0663", False),
    ],
)
def test_patterns_mean_what_they_mean_in_go(pattern: str, text: str, expected: bool) -> None:
    assert matches(pattern, text) is expected


@pytest.mark.timeout(5)
def test_a_nested_quantifier_on_hostile_input_finishes() -> None:
    assert not matches("^(a+)+$", "a" * 5000 + "b")


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("+", "error parsing regexp: missing argument to repetition operator: `+`"),
        ("x[a", "error parsing regexp: missing closing ]: `[a`"),
        (r"(?=a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
    ],
)
def test_an_invalid_pattern_is_refused_with_gos_message(pattern: str, message: str) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}
    errors = [str(error) for error in validate_structural(schema, "schema")]
    detail = f"must be a valid regular expression, but isn't: {message}"
    assert errors == [f'schema.properties[s].pattern: Invalid value: "{pattern}": {detail}']
