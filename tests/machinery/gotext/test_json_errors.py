"""encoding/json's texts for documents that do not decode (`svc.machinery.gotext.json_errors`)."""

from __future__ import annotations

import pytest

from svc.machinery.gotext.json_errors import syntax_error, type_error


@pytest.mark.parametrize(
    ("document", "text"),
    [
        ("[]", None),
        ("", "unexpected end of JSON input"),
        ('[{"a": "b"', "unexpected end of JSON input"),
        ("x", "invalid character 'x' looking for beginning of value"),
        ("nul", "unexpected end of JSON input"),
        ("trve", "invalid character 'v' in literal true (expecting 'u')"),
        ("-a", "invalid character 'a' in numeric literal"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ('{"a": 1 "b": 2}', "invalid character '\"' after object key:value pair"),
        ('["]", 1 2]', "invalid character '2' after array element"),
        ("{1: 2}", "invalid character '1' looking for beginning of object key string"),
        ("[1] [2]", "invalid character '[' after top-level value"),
        ("['a']", "invalid character '\\'' looking for beginning of value"),
    ],
)
def test_syntax_errors(document: str, text: str | None) -> None:
    assert syntax_error(document) == text


def test_type_errors_name_the_value_kind_and_the_go_type() -> None:
    expected = "json: cannot unmarshal object into Go value of type []core.Toleration"
    assert type_error({}, "[]core.Toleration") == expected
    assert type_error(True, "string", "Toleration.Key") == (
        "json: cannot unmarshal bool into Go struct field Toleration.Key of type string"
    )
    assert type_error(2.5, "int64", "T.N") == "json: cannot unmarshal number 2.5 into Go struct field T.N of type int64"
    assert type_error(7, "string", "T.S") == "json: cannot unmarshal number into Go struct field T.S of type string"
