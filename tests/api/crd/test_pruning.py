"""Pruning of undeclared fields, as upstream's structural pruning."""

from __future__ import annotations

from typing import Any

from svc.api.crd.pruning import prune
from svc.api.crd.structural import structural

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "size": {"type": "integer"},
                "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "partly": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"known": {"type": "object", "properties": {"a": {"type": "string"}}}},
                },
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "properties": {"spec": {"type": "object", "properties": {"x": {"type": "string"}}}},
                },
            },
        },
    },
}
ROOT = structural(SCHEMA)


def test_undeclared_fields_are_dropped_and_reported_with_their_paths() -> None:
    obj = {"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "a"}, "spec": {"size": 1, "extra": 2}, "top": 1}
    dropped = prune(obj, ROOT)
    assert obj == {"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "a"}, "spec": {"size": 1}}
    assert sorted(dropped) == ["spec.extra", "top"]


def test_list_items_are_pruned_with_their_index_in_the_path() -> None:
    obj = {"spec": {"ports": [{"port": 1}, {"port": 2, "name": "x"}]}}
    assert prune(obj, ROOT) == ["spec.ports[1].name"]
    assert obj["spec"]["ports"][1] == {"port": 2}


def test_additional_properties_keep_every_key() -> None:
    obj = {"spec": {"labels": {"a": "1", "b": "2"}}}
    assert prune(obj, ROOT) == []
    assert obj["spec"]["labels"] == {"a": "1", "b": "2"}


def test_preserve_unknown_fields_keeps_unknown_members() -> None:
    obj = {"spec": {"free": {"anything": {"deep": [1]}}}}
    assert prune(obj, ROOT) == []
    assert obj["spec"]["free"] == {"anything": {"deep": [1]}}


def test_declared_properties_below_a_preserving_node_are_still_pruned() -> None:
    obj = {"spec": {"partly": {"other": 1, "known": {"a": "x", "b": "y"}}}}
    assert prune(obj, ROOT) == ["spec.partly.known.b"]
    assert obj["spec"]["partly"] == {"other": 1, "known": {"a": "x"}}


def test_embedded_resources_keep_type_and_object_meta_fields_only() -> None:
    template = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "bogus": 1}, "spec": {"x": "1", "y": 2}}
    obj = {"spec": {"template": template}}
    assert sorted(prune(obj, ROOT)) == ["spec.template.metadata.bogus", "spec.template.spec.y"]
    assert template == {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": "1"}}


def test_an_object_under_a_scalar_schema_loses_its_members() -> None:
    obj = {"spec": {"ports": [{"port": {"nested": 1}}]}}
    # a type mismatch is validation's business; pruning only drops members nothing declares
    assert prune(obj, ROOT) == ["spec.ports[0].port.nested"]
