"""`x-kubernetes-validations` on custom resources, with upstream's messages and semantics."""

from __future__ import annotations

from typing import Any

from svc.api.crd.schema import CustomResourceSchema


def schema_with(rules: list[dict[str, Any]], **spec_extra: Any) -> CustomResourceSchema:
    spec = {
        "type": "object",
        "x-kubernetes-validations": rules,
        "properties": {
            "replicas": {"type": "integer"},
            "max": {"type": "integer"},
            "items": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
                    "x-kubernetes-validations": [{"rule": "self.size >= 0", "message": "size must not be negative"}],
                },
            },
        },
        **spec_extra,
    }
    return CustomResourceSchema({"type": "object", "properties": {"spec": spec}})


def texts(schema: CustomResourceSchema, spec: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    obj = {"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "a"}, "spec": spec}
    before = None if old is None else {**obj, "spec": old}
    return [str(error) for error in schema.validate(obj, before)]


def test_a_false_rule_on_an_object_reports_its_message_without_the_value() -> None:
    schema = schema_with([{"rule": "self.replicas <= self.max", "message": "replicas must not exceed max"}])
    assert texts(schema, {"replicas": 6, "max": 5}) == ["spec: Invalid value: replicas must not exceed max"]
    assert texts(schema, {"replicas": 5, "max": 5}) == []


def test_without_a_message_the_rule_itself_is_quoted() -> None:
    schema = schema_with([{"rule": "self.replicas <= self.max"}])
    assert texts(schema, {"replicas": 6, "max": 5}) == ["spec: Invalid value: failed rule: self.replicas <= self.max"]


def test_message_expression_renders_the_message() -> None:
    rule = {"rule": "self.replicas <= self.max", "messageExpression": "'replicas is ' + string(self.replicas)"}
    assert texts(schema_with([rule]), {"replicas": 6, "max": 5}) == ["spec: Invalid value: replicas is 6"]


def test_reason_and_field_path_shape_the_error() -> None:
    rules = [
        {
            "rule": "self.replicas <= self.max",
            "message": "too many",
            "reason": "FieldValueForbidden",
            "fieldPath": ".replicas",
        },
        {"rule": "has(self.max)", "message": "max is needed", "reason": "FieldValueRequired", "fieldPath": ".max"},
    ]
    assert texts(schema_with(rules), {"replicas": 6, "max": 5}) == ["spec.replicas: Forbidden: too many"]
    assert texts(schema_with(rules[1:]), {"replicas": 6}) == ["spec.max: Required value: max is needed"]


def test_rules_on_list_items_report_the_item_path() -> None:
    schema = schema_with([])
    assert texts(schema, {"items": [{"name": "a", "size": 1}, {"name": "b", "size": -1}]}) == [
        "spec.items[1]: Invalid value: size must not be negative"
    ]


def test_transition_rules_run_only_on_update() -> None:
    schema = schema_with([{"rule": "self.replicas >= oldSelf.replicas", "message": "may not shrink"}])
    assert texts(schema, {"replicas": 1}) == []
    assert texts(schema, {"replicas": 1}, old={"replicas": 2}) == ["spec: Invalid value: may not shrink"]


def test_optional_old_self_runs_on_create_with_an_empty_optional() -> None:
    rule = {"rule": "oldSelf.hasValue() || self.replicas == 1", "optionalOldSelf": True, "message": "start at 1"}
    schema = schema_with([rule])
    assert texts(schema, {"replicas": 2}) == ["spec: Invalid value: start at 1"]
    assert texts(schema, {"replicas": 2}, old={"replicas": 1}) == []


def test_unchanged_values_are_ratcheted_for_rules_without_old_self() -> None:
    schema = schema_with([{"rule": "self.replicas <= self.max", "message": "too many"}])
    stored = {"replicas": 6, "max": 5, "items": [{"name": "a", "size": -1}]}
    assert texts(schema, stored, old=stored) == []
    changed = {"replicas": 6, "max": 5, "items": [{"name": "b", "size": 1}, {"name": "a", "size": -1}]}
    assert texts(schema, changed, old=stored) == ["spec: Invalid value: too many"]


def test_root_rules_see_metadata_name() -> None:
    root = {
        "type": "object",
        "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('ok')", "message": "bad name"}],
        "properties": {"spec": {"type": "object"}},
    }
    schema = CustomResourceSchema(root)
    assert [str(e) for e in schema.validate({"metadata": {"name": "no"}, "spec": {}})] == [
        "<nil>: Invalid value: bad name"
    ]


def test_a_runtime_error_is_reported_with_the_rule() -> None:
    schema = schema_with([{"rule": "self.replicas / self.max > 0"}])
    assert texts(schema, {"replicas": 1, "max": 0}) == [
        'spec: Invalid value: "object": division by zero evaluating rule: self.replicas / self.max > 0'
    ]


def test_a_false_rule_on_a_scalar_shows_the_value() -> None:
    spec_rules = [{"rule": "self <= 5", "message": "at most 5"}]
    schema = schema_with([])
    schema = CustomResourceSchema(
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {"replicas": {"type": "integer", "x-kubernetes-validations": spec_rules}},
                }
            },
        }
    )
    assert [str(e) for e in schema.validate({"spec": {"replicas": 7}})] == [
        "spec.replicas: Invalid value: 7: at most 5"
    ]


def test_map_values_are_reported_by_key_and_field_paths_follow_the_schema() -> None:
    limits = {
        "type": "object",
        "additionalProperties": {
            "type": "integer",
            "x-kubernetes-validations": [{"rule": "self >= 0", "message": "negative"}],
        },
        "x-kubernetes-validations": [
            {"rule": "!('cpu' in self) || self.cpu < 10", "message": "too much cpu", "fieldPath": ".cpu"}
        ],
    }
    schema = CustomResourceSchema(
        {"type": "object", "properties": {"spec": {"type": "object", "properties": {"limits": limits}}}}
    )
    assert [str(e) for e in schema.validate({"spec": {"limits": {"cpu": 20, "mem": -1}}})] == [
        "spec.limits.[cpu]: Invalid value: too much cpu",  # upstream appends the normalized path as a child
        "spec.limits[mem]: Invalid value: -1: negative",
    ]
