"""Field selectors parse, match, print and fail as upstream's do."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.machinery.fields import FieldRequirement, escape_value, parse_field_selector, unescape_value
from svc.machinery.labels import Operator, SelectorError


def test_requirements_in_sorted_term_order() -> None:
    selector = parse_field_selector("status.phase!=Running,metadata.name=web")
    assert selector.requirements == [
        FieldRequirement("metadata.name", Operator.EQUALS, "web"),
        FieldRequirement("status.phase", Operator.NOT_EQUALS, "Running"),
    ]


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("b=1,a=2", "a=2,b=1"),
        ("a==b", "a=b"),
        ("a!=b", "a!=b"),
        ("a=", "a="),
        (",,a=b,", "a=b"),
        ("=", ""),
        ("!=,a=b", "a=b"),
        ("a=b\\=c", "a=b\\=c"),
        ("a=b\\,c,d=e", "a=b\\,c,d=e"),
        ("a=\\\\", "a=\\\\"),
        ("a = b", "a = b"),
        ("", ""),
    ],
)
def test_prints_upstream_canonical_form(text: str, printed: str) -> None:
    assert str(parse_field_selector(text)) == printed


def test_escaped_value_is_unescaped() -> None:
    assert parse_field_selector("a=b\\,c\\=d\\\\").requirements[0].value == "b,c=d\\"


def test_blanks_are_kept() -> None:
    assert parse_field_selector("a = b").requirements == [FieldRequirement("a ", Operator.EQUALS, " b")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x", "invalid selector: 'x'; can't understand 'x'"),
        ("a=b,zzz", "invalid selector: 'a=b,zzz'; can't understand 'zzz'"),
        ("a=b=c", "invalid field selector: unescaped character in value: 61"),
        ("a!=b!=c", "invalid field selector: unescaped character in value: 61"),
        ("a=\\x", "invalid field selector: invalid escape sequence: \\x"),
        ("a=\\!", "invalid field selector: invalid escape sequence: \\!"),
        ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
    ],
)
def test_rejects_with_upstream_message(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_field_selector(text)
    assert str(caught.value) == message


def test_first_error_is_the_first_in_sorted_order() -> None:
    with pytest.raises(SelectorError, match="can't understand 'b'"):
        parse_field_selector("c,b")


@pytest.mark.parametrize(
    ("text", "fields", "expected"),
    [
        ("metadata.name=web", {"metadata.name": "web"}, True),
        ("metadata.name=web", {"metadata.name": "db"}, False),
        ("metadata.name!=web", {"metadata.name": "db"}, True),
        ("spec.nodeName=", {}, True),
        ("spec.nodeName!=", {}, False),
        ("a=1,b=2", {"a": "1", "b": "2"}, True),
        ("a=1,b=2", {"a": "1", "b": "3"}, False),
        ("", {"a": "1"}, True),
    ],
)
def test_matches(text: str, fields: dict[str, str], expected: bool) -> None:
    assert parse_field_selector(text).matches(fields) is expected


def test_empty() -> None:
    assert parse_field_selector("").empty
    assert parse_field_selector("=").empty
    assert not parse_field_selector("a=").empty


@given(st.text())
def test_escaping_round_trips(value: str) -> None:
    assert unescape_value(escape_value(value)) == value


_FIELDS = st.from_regex(r"[a-z][a-zA-Z.]{0,12}", fullmatch=True)


@given(st.lists(st.tuples(_FIELDS, st.sampled_from(["=", "==", "!="]), st.text(max_size=8)), max_size=4))
def test_printed_form_parses_to_the_same_requirements(terms: list[tuple[str, str, str]]) -> None:
    selector = parse_field_selector(",".join(f + op + escape_value(v) for f, op, v in terms))
    assert set(parse_field_selector(str(selector)).requirements) == set(selector.requirements)
