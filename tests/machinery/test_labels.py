"""Label selectors parse, match, print and fail as upstream's do (cases from upstream's selector tests)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.machinery.labels import (
    LabelSelector,
    SelectorError,
    label_selector_from_dict,
    parse_label_selector,
    validate_label_selector,
)

KEY_NAME_REGEX = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_REGEX = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
OPERATORS = "in, notin, =, ==, !=, gt, lt"


@pytest.mark.parametrize(
    "text", ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5", "x==a"]
)
def test_prints_back_without_blanks(text: str) -> None:
    assert str(parse_label_selector(text)) == text.replace(" ", "")


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("\rx", "x"),
        ("this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"),
        ("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"),
        ("foo  in\t (abc)", "foo in (abc)"),
        ("x notin\n (abc)", "x notin (abc)"),
        ("x in (abc,)", "x in (,abc)"),
        ("x in (abc,abc)", "x in (abc)"),
        ("x in ()", "x in ()"),
        ("x in (a,,,,,,)", "x in (,a)"),
        ("x in (a,,a,,a,,a,,)", "x in (,a)"),
        ("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"),
        ("x notin ( )", "x notin ()"),
        ("x notin (, a)", "x notin (,a)"),
        ("a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"),
        ("notin=in", "notin=in"),
        ("!in", "!in"),
        ("x=a,a=x", "a=x,x=a"),
    ],
)
def test_parses_to_upstream_canonical_form(text: str, printed: str) -> None:
    assert str(parse_label_selector(text)) == printed


def test_nul_ends_the_token_it_is_in() -> None:
    assert str(parse_label_selector("x=\0y")) == "x=y"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x==a==b", "found '==', expected: ',' or 'end of string'"),
        ("!x=a", "found '=', expected: ',' or 'end of string'"),
        ("x,,y", "found ',', expected: identifier after ','"),
        (",x,y", "found ',', expected: !, identifier, or 'end of string'"),
        ("a in (xyz),", "found '', expected: identifier after ','"),
        ("a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'"),
        ("(", "found '(', expected: !, identifier, or 'end of string'"),
        ("x nott in (y)", f"unable to parse requirement: found 'nott', expected: {OPERATORS}"),
        ("x !", f"unable to parse requirement: found '!', expected: {OPERATORS}"),
        ("a (", f"unable to parse requirement: found '(', expected: {OPERATORS}"),
        ("a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'"),
        ("a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier"),
        ("x in a", "unable to parse requirement: found 'a' expected: '('"),
        ("!", "unable to parse requirement: found '', expected: identifier"),
        ("x=(", "unable to parse requirement: found '(', expected: identifier"),
        (
            "x<a",
            'unable to parse requirement: values[0]: Invalid value: "a": '
            "for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        ("x=a@b", f'unable to parse requirement: values[0][x]: Invalid value: "a@b": {VALUE_REGEX}'),
        ("a@b", f'unable to parse requirement: <nil>: Invalid value: "a@b": name part {KEY_NAME_REGEX}'),
        (
            "example.com/",
            'unable to parse requirement: <nil>: Invalid value: "example.com/": '
            f"name part must be non-empty; name part {KEY_NAME_REGEX}",
        ),
    ],
)
def test_rejects_with_upstream_message(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_label_selector(text)
    assert str(caught.value) == message


def test_selector_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="expected"):
        parse_label_selector("x,")


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        ("", {"x": "y"}, True),
        ("x=y", {"x": "y"}, True),
        ("x=y,z=w", {"x": "y", "z": "w"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("notin=in", {"notin": "in"}, True),
        ("x", {"x": "z"}, True),
        ("!x", {"y": "z"}, True),
        ("x>1", {"x": "2"}, True),
        ("x<1", {"x": "0"}, True),
        ("x=z", {}, False),
        ("x=y", {"x": "z"}, False),
        ("x=y,z=w", {"x": "w", "z": "w"}, False),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        ("x", {"y": "z"}, False),
        ("!x", {"x": "z"}, False),
        ("x>1", {"x": "0"}, False),
        ("x<1", {"x": "2"}, False),
        ("x!=y", {}, True),
        ("x notin (a)", {}, True),
        ("x in (a,b)", {"x": "b"}, True),
        ("x in ()", {"x": ""}, True),
        ("x in ()", {"y": "baz"}, False),
        ("z>1", {"z": "v2"}, False),
        ("z>1", {"z": "+2"}, True),
        ("z<1", {"z": "-9223372036854775809"}, False),
        ("z", {"z": ""}, True),
    ],
)
def test_matches(text: str, labels: dict[str, str], expected: bool) -> None:
    assert parse_label_selector(text).matches(labels) is expected


def test_empty_text_is_empty() -> None:
    assert parse_label_selector("").empty


def test_any_requirement_makes_it_non_empty() -> None:
    assert not parse_label_selector("x").empty


def test_requirements_are_sorted_by_key() -> None:
    assert [r.key for r in parse_label_selector("z,b=1,a in (x)").requirements] == ["a", "b", "z"]


def test_object_form_prints_as_upstream() -> None:
    selector = label_selector_from_dict(
        {
            "matchLabels": {"app": "web", "tier": "front"},
            "matchExpressions": [
                {"key": "env", "operator": "In", "values": ["prod", "dev"]},
                {"key": "legacy", "operator": "DoesNotExist"},
                {"key": "app", "operator": "Exists"},
            ],
        }
    )
    assert str(selector) == "app=web,app,env in (dev,prod),!legacy,tier=front"


def test_object_form_matches() -> None:
    selector = label_selector_from_dict({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["a"]}]})
    assert selector.matches({"env": "b"})
    assert not selector.matches({"env": "a"})


def test_empty_object_selects_everything() -> None:
    selector = label_selector_from_dict({})
    assert selector.empty
    assert selector.matches({"a": "b"})


def test_absent_object_selects_nothing() -> None:
    selector = label_selector_from_dict(None)
    assert not selector.empty
    assert not selector.matches({})
    assert str(selector) == ""
    assert selector == LabelSelector.nothing()


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ({"matchExpressions": [{"key": "a", "operator": "Foo"}]}, '"Foo" is not a valid label selector operator'),
        ({"matchExpressions": [{"key": "a"}]}, '"" is not a valid label selector operator'),
        (
            {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]},
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
            'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
        ),
        (
            {"matchLabels": {"a/b/c": "x"}},
            'key: Invalid value: "a/b/c": a valid label key '
            + KEY_NAME_REGEX
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        ),
        (
            {"matchLabels": {"a b": "x y"}},
            f'[key: Invalid value: "a b": name part {KEY_NAME_REGEX}, '
            f'values[0][a b]: Invalid value: "x y": {VALUE_REGEX}]',
        ),
        ({"matchLabels": ["a"]}, "matchLabels: must be an object"),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": "x"}]}, "values: must be an array of strings"),
    ],
)
def test_object_form_rejects_with_upstream_message(selector: dict[str, Any], message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        label_selector_from_dict(selector)
    assert str(caught.value) == message


def test_validate_object_form() -> None:
    selector = {
        "matchLabels": {"a": "-"},
        "matchExpressions": [
            {"key": "b", "operator": "In"},
            {"key": "c", "operator": "Exists", "values": ["x"]},
            {"key": "d e", "operator": "Near", "values": ["-"]},
        ],
    }
    assert [str(error) for error in validate_label_selector(selector, "spec.selector")] == [
        f'spec.selector.matchLabels: Invalid value: "-": {VALUE_REGEX}',
        "spec.selector.matchExpressions[0].values: Required value: "
        "must be specified when `operator` is 'In' or 'NotIn'",
        "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or "
        "'DoesNotExist'",
        'spec.selector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
        f'spec.selector.matchExpressions[2].key: Invalid value: "d e": name part {KEY_NAME_REGEX}',
        f'spec.selector.matchExpressions[2].values[0]: Invalid value: "-": {VALUE_REGEX}',
    ]


def test_validate_may_allow_invalid_values() -> None:
    selector = {"matchExpressions": [{"key": "b", "operator": "In", "values": ["-"]}]}
    assert validate_label_selector(selector, "spec.selector", allow_invalid_label_value=True) == []


_NAMES = st.from_regex(r"[a-z0-9]([a-z0-9._-]{0,10}[a-z0-9])?", fullmatch=True).filter(
    lambda name: name not in ("in", "notin")
)


@st.composite
def _selector_texts(draw: st.DrawFn) -> str:
    parts = []
    for key in draw(st.lists(_NAMES, min_size=1, max_size=4)):
        form = draw(st.sampled_from(["exists", "not", "eq", "ne", "in", "notin", "gt"]))
        if form == "exists":
            parts.append(key)
        elif form == "not":
            parts.append("!" + key)
        elif form in ("eq", "ne"):
            parts.append(key + ("=" if form == "eq" else "!=") + draw(_NAMES | st.just("")))
        elif form == "gt":
            parts.append(f"{key}>{draw(st.integers(0, 10**6))}")
        else:
            values = draw(st.lists(_NAMES | st.just(""), min_size=1, max_size=3))
            parts.append(f"{key} {form} ({','.join(values)})")
    return ",".join(parts)


@given(_selector_texts())
def test_printed_form_parses_to_the_same_selector(text: str) -> None:
    selector = parse_label_selector(text)
    assert parse_label_selector(str(selector)) == selector


@given(_selector_texts(), st.dictionaries(_NAMES, _NAMES | st.just(""), max_size=4))
def test_printed_form_matches_the_same_labels(text: str, labels: dict[str, str]) -> None:
    selector = parse_label_selector(text)
    assert parse_label_selector(str(selector)).matches(labels) == selector.matches(labels)
