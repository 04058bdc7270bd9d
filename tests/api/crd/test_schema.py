"""The facade the custom resource strategy calls: one compiled schema per CRD revision and version."""

from __future__ import annotations

import copy
from typing import Any

from svc.api.crd.schema import CustomResourceSchema

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8}}},
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer", "default": 1, "maximum": 5},
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                },
                "labels": {
                    "type": "object",
                    "x-kubernetes-map-type": "atomic",
                    "additionalProperties": {"type": "string"},
                },
            },
        },
        "status": {"type": "object", "properties": {"ready": {"type": "integer", "minimum": 0}}},
    },
}


def crd(resource_version: str = "1", schema: dict[str, Any] = SCHEMA) -> dict[str, Any]:
    return {
        "metadata": {"name": "widgets.example.com", "uid": "u-1", "resourceVersion": resource_version},
        "spec": {
            "versions": [
                {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}},
                {"name": "v2", "served": True, "storage": False, "schema": {"openAPIV3Schema": {"type": "object"}}},
            ]
        },
    }


def widget(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def test_the_schema_is_compiled_once_per_crd_revision_and_version() -> None:
    first = CustomResourceSchema.for_version(crd(), "v1")
    assert CustomResourceSchema.for_version(crd(), "v1") is first
    assert CustomResourceSchema.for_version(crd(), "v2") is not first
    assert CustomResourceSchema.for_version(crd("2"), "v1") is not first


def test_create_path_prunes_defaults_and_validates() -> None:
    schema = CustomResourceSchema.for_version(crd(), "v1")
    obj = widget(ports=[{"name": "http", "extra": 1}], unknown=True)
    assert sorted(schema.prune(obj)) == ["spec.ports[0].extra", "spec.unknown"]
    schema.apply_defaults(obj)
    assert obj["spec"] == {"ports": [{"name": "http"}], "replicas": 1}
    assert schema.validate(obj) == []


def test_validate_reports_the_whole_object_including_metadata_rules() -> None:
    schema = CustomResourceSchema.for_version(crd(), "v1")
    obj = widget(replicas=9, ports=[{}])
    obj["metadata"]["name"] = "much-too-long"
    assert [str(error) for error in schema.validate(obj)] == [
        "metadata.name: Too long: may not be more than 8 bytes",
        "spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5",
        "spec.ports[0].name: Required value",
    ]


def test_update_ratchets_unchanged_invalid_values() -> None:
    schema = CustomResourceSchema.for_version(crd(), "v1")
    old = widget(replicas=9)
    new = copy.deepcopy(old)
    new["metadata"]["labels"] = {"touched": "yes"}
    assert schema.validate(new, old) == []
    new["spec"]["replicas"] = 8
    assert [error.field for error in schema.validate(new, old)] == ["spec.replicas"]


def test_validate_status_checks_only_the_status_against_the_schema() -> None:
    schema = CustomResourceSchema.for_version(crd(), "v1")
    old = widget(replicas=1)
    new = {**widget(replicas="not a number"), "status": {"ready": -1}}
    assert [error.field for error in schema.validate(new, old)] == ["spec.replicas", "status.ready"]
    assert [error.field for error in schema.validate_status(new, old)] == ["status.ready"]


def test_node_at_gives_server_side_apply_the_list_and_map_types() -> None:
    schema = CustomResourceSchema.for_version(crd(), "v1")
    ports = schema.node_at(["spec", "ports"])
    assert ports is not None and ports.list_type == "map" and ports.list_map_keys == ("name",)
    assert schema.node_at(["spec", "ports", "name"]) is not None
    labels = schema.node_at(["spec", "labels"])
    assert labels is not None and labels.map_type == "atomic"
    assert schema.node_at(["spec", "nope"]) is None


def test_a_version_without_a_schema_prunes_everything_but_type_and_object_meta() -> None:
    schema = CustomResourceSchema.for_version(crd(), "v3")
    obj = widget(replicas=1)
    assert schema.prune(obj) == ["spec"]
    assert obj == {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}


RULED: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "x-kubernetes-validations": [{"rule": "self.n > 0"}],
            "properties": {
                "n": {"type": "integer"},
                "since": {"type": "string", "format": "date-time"},
                "day": {"type": "string", "format": "date"},
            },
        }
    },
}
NOT_CHECKED = (
    "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; "
    "correct the existing errors to complete validation"
)


def test_rules_are_not_run_after_a_type_error() -> None:
    """Found by tests/fuzz: a date-time string that does not parse made typing `self` raise (a 500)."""
    schema = CustomResourceSchema(RULED)
    errors = schema.validate({"spec": {"n": 1, "since": "x"}})
    assert [str(error) for error in errors] == [
        'spec.since: Invalid value: "x": spec.since in body must be of type date-time: "x"',
        NOT_CHECKED,
    ]


def test_a_date_time_with_a_lowercase_t_is_a_timestamp_to_the_rules() -> None:
    schema = CustomResourceSchema(RULED)
    assert schema.validate({"spec": {"n": 1, "since": "2026-01-01t00:00:00z", "day": "2026-01-01"}}) == []


def test_a_ratcheted_value_a_rule_cannot_type_fails_the_rule_rather_than_raising() -> None:
    """An unchanged invalid value passes schema validation (ratcheting), so the rules do run and typing
    `self` meets it; upstream types lazily and would pass this rule, svc reports a rule error."""
    schema = CustomResourceSchema(RULED)
    errors = schema.validate({"spec": {"n": 2, "since": "x"}}, {"spec": {"n": 1, "since": "x"}})
    assert [error.field for error in errors] == ["spec"]
    assert "evaluating rule: self.n > 0" in str(errors[0])
