"""OpenAPI value validation of custom resources, with upstream's messages."""

from __future__ import annotations

from typing import Any

import pytest

from svc.api.crd.value_validation import compile_schema

SPEC: dict[str, Any] = {
    "type": "object",
    "properties": {
        "replicas": {"type": "integer", "minimum": 1, "maximum": 5},
        "ratio": {"type": "number", "exclusiveMaximum": True, "maximum": 1, "multipleOf": 0.25},
        "name": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]+$"},
        "mode": {"type": "string", "enum": ["On", "Off"]},
        "id": {"type": "string", "format": "uuid"},
        "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string"}},
        "labels": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}},
        "port": {"x-kubernetes-int-or-string": True},
        "note": {"type": "string", "nullable": True},
        "need": {"type": "object", "required": ["a"], "minProperties": 2, "properties": {"a": {"type": "string"}}},
        "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "template": {
            "type": "object",
            "x-kubernetes-embedded-resource": True,
            "x-kubernetes-preserve-unknown-fields": True,
        },
        "either": {"type": "string", "anyOf": [{"pattern": "^a"}, {"pattern": "^b"}]},
    },
}
NODE = compile_schema({"type": "object", "properties": {"spec": SPEC}})


def messages(spec: dict[str, Any]) -> list[str]:
    return [str(error) for error in NODE.validate({"spec": spec})]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"replicas": 10}, "spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 5"),
        (
            {"replicas": 0},
            "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
        ),
        ({"ratio": 1}, "spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1"),
        ({"ratio": 0.3}, "spec.ratio: Invalid value: 0.3: spec.ratio in body should be a multiple of 0.25"),
        ({"name": "a"}, 'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long'),
        ({"name": "abcde"}, "spec.name: Too long: may not be more than 4 bytes"),
        ({"name": "AB"}, "spec.name: Invalid value: \"AB\": spec.name in body should match '^[a-z]+$'"),
        ({"mode": "Maybe"}, 'spec.mode: Unsupported value: "Maybe": supported values: "On", "Off"'),
        ({"id": "nope"}, 'spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"'),
        ({"tags": []}, "spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items"),
        ({"tags": ["a", "b", "c"]}, "spec.tags: Too many: 3: must have at most 2 items"),
        ({"labels": {"a": "1", "b": "2"}}, "spec.labels: Too many: 2: must have at most 1 item"),
        (
            {"replicas": "3"},
            'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        ),
        (
            {"port": True},
            'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        ),
        ({"name": None}, 'spec.name: Invalid value: "null": spec.name in body must be of type string: "null"'),
        ({"need": {"b": "x"}}, "spec.need: Invalid value: 1: spec.need in body should have at least 2 properties"),
        ({"set": ["x", "y", "x"]}, 'spec.set[2]: Duplicate value: "x"'),
        ({"template": {"metadata": {}}}, "spec.template.apiVersion: Required value"),
        ({"either": "c"}, '<nil>: Invalid value: "": "spec.either" must validate at least one schema (anyOf)'),
    ],
)
def test_each_violation_gets_upstreams_message(spec: dict[str, Any], expected: str) -> None:
    assert expected in messages(spec)


def test_a_missing_required_property_is_required_at_its_path() -> None:
    assert "spec.need.a: Required value" in messages({"need": {"x": 1, "y": 2}})


def test_valid_values_pass() -> None:
    spec = {
        "replicas": 3,
        "ratio": 0.5,
        "name": "abc",
        "mode": "On",
        "id": "123e4567-e89b-12d3-a456-426614174000",
        "tags": ["a"],
        "port": "http",
        "note": None,
        "need": {"a": "x", "b": 1},
        "set": ["x", "y"],
        "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}},
        "either": "bee",
    }
    assert messages(spec) == []


def test_an_integral_float_is_an_integer() -> None:
    assert messages({"replicas": 3.0}) == []


def test_an_embedded_kind_must_be_a_dns_label_in_any_case() -> None:
    errors = messages({"template": {"apiVersion": "v1", "kind": "My_Kind"}})
    assert errors[0].startswith(
        'spec.template.kind: Invalid value: "My_Kind": may have mixed case, but should otherwise'
    )


def test_map_list_keys_must_be_unique() -> None:
    node = compile_schema(
        {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name", "port"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}},
        }
    )
    value = [{"name": "a", "port": 1}, {"name": "a", "port": 2}, {"name": "a", "port": 1, "x": 0}]
    assert [str(e) for e in node.validate(value, "spec.ports")] == [
        'spec.ports[2]: Duplicate value: {"name":"a","port":1}'
    ]


def test_ratcheting_skips_values_equal_to_the_old_ones() -> None:
    old = {"spec": {"replicas": 10, "name": "abc"}}
    new = {"spec": {"replicas": 10, "name": "ABC"}}
    errors = [str(e) for e in NODE.validate(new, "", old)]
    assert errors == ["spec.name: Invalid value: \"ABC\": spec.name in body should match '^[a-z]+$'"]


def test_ratcheting_correlates_map_list_items_by_key() -> None:
    node = compile_schema(
        {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "n": {"type": "integer", "maximum": 1}},
            },
        }
    )
    old = [{"name": "a", "n": 5}]
    new = [{"name": "b", "n": 0}, {"name": "a", "n": 5}]
    assert node.validate(new, "l", old) == []
    assert [str(e) for e in node.validate([{"name": "c", "n": 5}], "l", old)] == [
        "l[0].n: Invalid value: 5: l[0].n in body should be less than or equal to 1"
    ]


def test_ratcheting_correlates_set_items_by_value() -> None:
    node = compile_schema(
        {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string", "maxLength": 2}}
    )
    assert node.validate(["ok", "long"], "tags", ["long"]) == []
    assert [str(e) for e in node.validate(["ok", "longer"], "tags", ["long"])] == [
        "tags[1]: Too long: may not be more than 2 bytes"
    ]


def test_embedded_metadata_is_validated_as_object_meta() -> None:
    errors = messages(
        {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a/b", "labels": {"x": "-bad-"}}}}
    )
    assert errors[0] == "spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'"
    assert errors[1].startswith('spec.template.metadata.labels: Invalid value: "-bad-": a valid label must be')


def test_list_and_embedded_errors_follow_the_schema_errors() -> None:
    errors = messages({"set": ["x", "x"], "template": {"kind": "Pod"}, "replicas": 10})
    assert errors == [
        "spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 5",
        'spec.set[1]: Duplicate value: "x"',
        "spec.template.apiVersion: Required value",
    ]


def test_one_of_and_not_report_how_many_alternatives_matched() -> None:
    node = compile_schema({"type": "string", "oneOf": [{"pattern": "a"}, {"pattern": "b"}], "not": {"pattern": "z"}})
    assert [str(e) for e in node.validate("ab", "spec.x")] == [
        '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives'
    ]
    assert [str(e) for e in node.validate("az", "spec.x")] == [
        '<nil>: Invalid value: "": "spec.x" must not validate the schema (not)'
    ]
