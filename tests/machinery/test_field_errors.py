"""Field errors print, and turn into causes, exactly as upstream's `field.Error` does."""

from __future__ import annotations

import pytest

from svc.machinery.field_errors import (
    Rendered,
    aggregate_message,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
    type_invalid,
)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("x", '"x"'),
        ('a"b\\c', '"a\\"b\\\\c"'),
        ("tab\there", '"tab\\there"'),
        ("\x01", '"\\x01"'),
        ("é<>", '"é<>"'),
        (3, "3"),
        (-1, "-1"),
        (True, "true"),
        (False, "false"),
        (0.5, "0.5"),
        (1000000.0, "1e+06"),
        (None, "null"),
        (["a", "b"], '["a","b"]'),
        (("a",), '["a"]'),
        ([], "[]"),
        ({"b": 1, "a": "<"}, '{"a":"\\u003c","b":1}'),
        (Rendered('{"kind":"Event","apiVersion":"v1"}'), '{"kind":"Event","apiVersion":"v1"}'),
    ],
)
def test_invalid_value_is_rendered_as_go_prints_it(value: object, shown: str) -> None:
    assert str(invalid("spec.x", value, "bad")) == f"spec.x: Invalid value: {shown}: bad"


def test_invalid_without_detail_ends_at_the_value() -> None:
    assert str(invalid("spec.x", "v", "")) == 'spec.x: Invalid value: "v"'


def test_required_shows_no_value() -> None:
    assert str(required("metadata.namespace")) == "metadata.namespace: Required value"


def test_required_with_detail() -> None:
    error = required("metadata.name", "name or generateName is required")
    assert str(error) == "metadata.name: Required value: name or generateName is required"


def test_forbidden() -> None:
    error = forbidden("metadata.namespace", "not allowed on this type")
    assert str(error) == "metadata.namespace: Forbidden: not allowed on this type"


def test_duplicate() -> None:
    assert str(duplicate("spec.ports[1].name", "http")) == 'spec.ports[1].name: Duplicate value: "http"'


def test_not_supported_quotes_the_supported_values() -> None:
    error = not_supported("propagationPolicy", "Sometimes", ["Foreground", "Background", "Orphan"])
    expected = (
        'propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan"'
    )
    assert str(error) == expected


def test_not_supported_without_values_has_no_detail() -> None:
    assert str(not_supported("dryRun", ["x"], [])) == 'dryRun: Unsupported value: ["x"]'


@pytest.mark.parametrize(
    ("limit", "text"),
    [
        (262144, "metadata.annotations: Too long: may not be more than 262144 bytes"),
        (1, "metadata.annotations: Too long: may not be more than 1 byte"),
        (-1, "metadata.annotations: Too long: value is too long"),
    ],
)
def test_too_long_never_shows_the_value(limit: int, text: str) -> None:
    assert str(too_long("metadata.annotations", limit)) == text


@pytest.mark.parametrize(
    ("actual", "limit", "text"),
    [
        (5, 3, "spec.items: Too many: 5: must have at most 3 items"),
        (2, 1, "spec.items: Too many: 2: must have at most 1 item"),
        (-1, 3, "spec.items: Too many: must have at most 3 items"),
        (5, -1, "spec.items: Too many: 5: has too many items"),
    ],
)
def test_too_many(actual: int, limit: int, text: str) -> None:
    assert str(too_many("spec.items", actual, limit)) == text


def test_type_invalid_reads_as_invalid_value() -> None:
    assert str(type_invalid("spec.replicas", "x", "must be an integer")) == (
        'spec.replicas: Invalid value: "x": must be an integer'
    )


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (invalid("f", 1, "d"), "FieldValueInvalid"),
        (required("f"), "FieldValueRequired"),
        (duplicate("f", 1), "FieldValueDuplicate"),
        (not_supported("f", "x", ["y"]), "FieldValueNotSupported"),
        (forbidden("f", "d"), "FieldValueForbidden"),
        (too_long("f", 3), "FieldValueTooLong"),
        (too_many("f", 4, 3), "FieldValueTooMany"),
        (type_invalid("f", 1, "d"), "FieldValueTypeInvalid"),
    ],
)
def test_reason_is_the_cause_type(error: object, reason: str) -> None:
    assert error.reason == reason  # type: ignore[attr-defined]


def test_cause_carries_the_body_without_the_field() -> None:
    cause = invalid("metadata.name", "A", "must be lower case").cause()
    assert cause == {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "A": must be lower case',
        "field": "metadata.name",
    }


def test_cause_omits_an_empty_field() -> None:
    assert invalid("", "A", "bad").cause() == {"reason": "FieldValueInvalid", "message": 'Invalid value: "A": bad'}


def test_aggregate_of_one_error_is_bare() -> None:
    assert aggregate_message([required("metadata.name")]) == "metadata.name: Required value"


def test_aggregate_of_several_errors_is_bracketed() -> None:
    errors = [required("metadata.name"), forbidden("metadata.namespace", "not allowed on this type")]
    expected = "[metadata.name: Required value, metadata.namespace: Forbidden: not allowed on this type]"
    assert aggregate_message(errors) == expected


def test_aggregate_drops_repeated_texts() -> None:
    errors = [required("a"), required("b"), required("a")]
    assert aggregate_message(errors) == "[a: Required value, b: Required value]"


def test_aggregate_of_identical_errors_is_bare() -> None:
    assert aggregate_message([required("a"), required("a")]) == "a: Required value"
