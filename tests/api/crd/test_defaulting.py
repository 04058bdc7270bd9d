"""Defaulting from schema `default`s, as upstream's structural defaulting."""

from __future__ import annotations

from typing import Any

from svc.api.crd.defaulting import apply_defaults, drop_disallowed_nulls
from svc.api.crd.structural import structural

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "default": {},
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "mode": {"type": "string", "nullable": True, "default": "auto"},
                "size": {"type": "string", "default": "small"},
                "nothing": {"type": "string", "default": None, "nullable": True},
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "default": {},
                        "properties": {"protocol": {"type": "string", "default": "TCP"}},
                    },
                },
                "limits": {"type": "object", "additionalProperties": {"type": "integer", "default": 7}},
            },
        },
    },
}
ROOT = structural(SCHEMA)


def test_an_absent_property_gets_its_default_and_defaults_apply_below_it() -> None:
    obj: dict[str, Any] = {}
    apply_defaults(obj, ROOT)
    assert obj == {"spec": {"replicas": 1, "mode": "auto", "size": "small"}}


def test_a_set_value_is_kept() -> None:
    obj = {"spec": {"replicas": 0, "size": "big", "mode": "manual"}}
    apply_defaults(obj, ROOT)
    assert obj["spec"]["replicas"] == 0 and obj["spec"]["size"] == "big" and obj["spec"]["mode"] == "manual"


def test_null_is_kept_where_nullable_and_defaulted_where_not() -> None:
    obj: dict[str, Any] = {"spec": {"mode": None, "size": None}}
    apply_defaults(obj, ROOT)
    assert obj["spec"]["mode"] is None
    assert obj["spec"]["size"] == "small"


def test_a_null_default_sets_nothing() -> None:
    obj: dict[str, Any] = {"spec": {}}
    apply_defaults(obj, ROOT)
    assert "nothing" not in obj["spec"]


def test_list_items_are_defaulted_and_null_items_get_the_item_default() -> None:
    obj: dict[str, Any] = {"spec": {"ports": [{}, None, {"protocol": "UDP"}]}}
    apply_defaults(obj, ROOT)
    assert obj["spec"]["ports"] == [{"protocol": "TCP"}, {"protocol": "TCP"}, {"protocol": "UDP"}]


def test_null_additional_properties_values_get_their_default() -> None:
    obj: dict[str, Any] = {"spec": {"limits": {"a": None, "b": 3}}}
    apply_defaults(obj, ROOT)
    assert obj["spec"]["limits"] == {"a": 7, "b": 3}


def test_defaults_are_copies_not_shared_objects() -> None:
    first: dict[str, Any] = {"spec": {"ports": [None]}}
    second: dict[str, Any] = {"spec": {"ports": [None]}}
    apply_defaults(first, ROOT)
    apply_defaults(second, ROOT)
    first["spec"]["ports"][0]["protocol"] = "changed"
    assert second["spec"]["ports"][0]["protocol"] == "TCP"


def test_nulls_without_a_default_where_not_nullable_are_dropped() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "plain": {"type": "string"},
                    "nullable": {"type": "string", "nullable": True},
                    "defaulted": {"type": "string", "default": "d"},
                    "items": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}},
                },
            },
        },
    }
    root = structural(schema)
    obj: dict[str, Any] = {
        "spec": {"plain": None, "nullable": None, "defaulted": None, "items": [{"x": None}]},
        "other": None,
    }
    drop_disallowed_nulls(obj, root)
    assert obj == {"spec": {"nullable": None, "defaulted": None, "items": [{}]}, "other": None}
    apply_defaults(obj, root)
    assert obj["spec"]["defaulted"] == "d"
