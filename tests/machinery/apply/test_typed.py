"""Schema-aware field sets, comparisons, merges, removals and validation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svc.api.schemas import Schema
from svc.machinery.apply.fieldpath import FieldSet, make_path
from svc.machinery.apply.shapes import shape_of
from svc.machinery.apply.typed import (
    TypedError,
    compare,
    ensure_named_fields_are_members,
    field_set,
    merge,
    remove_items,
    values_equal,
)
from svc.machinery.apply.zero_values import with_zero_values

POD = shape_of(Schema.named("io.k8s.api.core.v1.Pod"))
DEPLOYMENT = shape_of(Schema.named("io.k8s.api.apps.v1.Deployment"))
CONFIGMAP = shape_of(Schema.named("io.k8s.api.core.v1.ConfigMap"))


def pod(*containers: dict[str, Any]) -> dict[str, Any]:
    return {"spec": {"containers": list(containers)}}


def test_field_set_has_leaves_items_and_map_entries_but_not_filled_structs() -> None:
    obj = {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "args": ["x"]}]}}
    assert field_set(obj, POD).strings() == [
        ".metadata.labels.a",
        '.spec.containers[name="c"]',
        '.spec.containers[name="c"].args',
        '.spec.containers[name="c"].name',
    ]


def test_field_set_keeps_empty_and_null_struct_fields() -> None:
    obj = {"spec": {"securityContext": {}, "nodeName": None}}
    assert field_set(obj, POD).strings() == [".spec.nodeName", ".spec.securityContext"]


def test_field_set_marks_a_repeated_item_once_without_descending() -> None:
    obj = pod({"name": "c"}, {"name": "c"})
    assert field_set(obj, POD).strings() == ['.spec.containers[name="c"]']


def test_compare_reports_added_nodes_at_every_level_and_modified_leaves() -> None:
    old = {"spec": {"replicas": 1}}
    new = {"spec": {"replicas": 2, "template": {"metadata": {"labels": {"a": "b"}}}}}
    result = compare(old, new, DEPLOYMENT)
    assert result.modified.strings() == [".spec.replicas"]
    assert result.added.strings() == [
        ".spec.template",
        ".spec.template.metadata",
        ".spec.template.metadata.labels",
        ".spec.template.metadata.labels.a",
    ]
    assert not result.removed


def test_compare_keeps_empty_list_apart_from_null() -> None:
    result = compare(pod({"name": "c", "ports": []}), pod({"name": "c", "ports": None}), POD)
    assert result.modified.strings() == ['.spec.containers[name="c"].ports']


def test_compare_reports_duplicates_that_appeared() -> None:
    result = compare(pod({"name": "c"}), pod({"name": "c"}, {"name": "c"}), POD)
    assert result.added.strings() == ['.spec.containers[name="c"]']
    assert result.removed.strings() == ['.spec.containers[name="c"]', '.spec.containers[name="c"].name']


def test_values_equal_treats_numbers_alike_but_not_booleans() -> None:
    assert values_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not values_equal([True], [1])
    assert not values_equal({"a": 1}, {"a": 1, "b": None})


def test_merge_replaces_atomic_values_and_merges_granular_ones() -> None:
    live = {"spec": {"selector": {"app": "a", "tier": "x"}}, "metadata": {"labels": {"app": "a"}}}
    config = {"spec": {"selector": {"app": "b"}}, "metadata": {"labels": {"tier": "y"}}}
    merged = merge(live, config, shape_of(Schema.named("io.k8s.api.core.v1.Service")))
    assert merged == {"spec": {"selector": {"app": "b"}}, "metadata": {"labels": {"app": "a", "tier": "y"}}}


# Upstream's own merge table for set lists (structured-merge-diff typed/merge_test.go, "setStr").
SET_MERGES = [
    (["a", "b", "c"], ["a", "b"], ["a", "b", "c"]),
    (["a", "b"], ["a", "b", "c"], ["a", "b", "c"]),
    (["a", "b", "c"], [], ["a", "b", "c"]),
    ([], ["a", "b", "c"], ["a", "b", "c"]),
    (["a", "b"], ["b", "a"], ["b", "a"]),
    (["a", "b", "c"], ["d", "e", "f"], ["a", "b", "c", "d", "e", "f"]),
    (["a", "b", "c"], ["c", "d", "e", "f"], ["a", "b", "c", "d", "e", "f"]),
    (["a", "b", "c", "g", "f"], ["c", "d", "e", "f"], ["a", "b", "c", "g", "d", "e", "f"]),
    (["a", "b", "c"], ["d", "e", "f", "x", "y", "z"], ["a", "b", "c", "d", "e", "f", "x", "y", "z"]),
    (["c", "d", "e", "f"], ["a", "c", "e"], ["a", "c", "d", "e", "f"]),
    (["a", "b", "c", "x", "y", "z"], ["d", "e", "f"], ["a", "b", "c", "x", "y", "z", "d", "e", "f"]),
    (["a", "b", "c", "x", "y", "z"], ["d", "e", "f", "x", "y", "z"], ["a", "b", "c", "d", "e", "f", "x", "y", "z"]),
    (["c", "a", "g", "f"], ["c", "f", "a", "g"], ["c", "f", "a", "g"]),
    (["a", "b", "c", "d"], ["d", "e", "f", "a"], ["b", "c", "d", "e", "f", "a"]),
    (
        ["c", "d", "e", "f", "g", "h", "i", "j"],
        ["2", "h", "3", "e", "4", "k", "l"],
        ["c", "d", "f", "g", "2", "h", "i", "j", "3", "e", "4", "k", "l"],
    ),
    (
        ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"],
        ["1", "b", "2", "h", "3", "e", "4", "k", "l"],
        ["a", "1", "b", "c", "d", "f", "g", "2", "h", "i", "j", "3", "e", "4", "k", "l"],
    ),
    (["a", "b", "b"], ["c"], ["a", "b", "b", "c"]),
    (["a", "b", "b"], ["b"], ["a", "b"]),
    (["a", "b", "b"], ["a"], ["a", "b", "b"]),
    (["a", "b", "c", "d", "e", "c"], ["1", "b", "2", "e", "d"], ["a", "1", "b", "c", "2", "e", "c", "d"]),
    (["a", "b", "c", "d", "e", "c"], ["1", "b", "2", "c", "e", "d"], ["a", "1", "b", "2", "c", "e", "d"]),
    (["a", "a", "b", "b"], ["b", "c", "d"], ["a", "a", "b", "c", "d"]),
    (["a", "a", "b", "b"], [], ["a", "a", "b", "b"]),
    (["c", "a", "g", "f", "c", "a"], ["c", "f", "a", "g"], ["c", "f", "a", "g"]),
]


@pytest.mark.parametrize(("live", "config", "merged"), SET_MERGES)
def test_merge_orders_set_items_as_upstream(live: list[str], config: list[str], merged: list[str]) -> None:
    result = merge({"metadata": {"finalizers": live}}, {"metadata": {"finalizers": config}}, CONFIGMAP)
    assert result["metadata"]["finalizers"] == merged


def test_merge_collapses_live_duplicates_into_the_applied_item() -> None:
    live = pod({"name": "a", "image": "1"}, {"name": "a", "image": "2"})
    merged = merge(live, pod({"name": "a", "args": ["x"]}), POD)
    assert merged["spec"]["containers"] == [{"name": "a", "args": ["x"]}]


def test_merge_rejects_a_configuration_naming_an_item_twice() -> None:
    with pytest.raises(TypedError, match=r'\.spec\.containers: duplicate entries for key \[name="a"\]'):
        merge(pod({"name": "a"}), pod({"name": "a"}, {"name": "a"}), POD)


def test_remove_items_drops_members_and_turns_emptied_maps_into_null() -> None:
    obj = {"data": {"a": "1"}, "metadata": {"labels": {"x": "y"}}}
    removed = remove_items(obj, FieldSet.of(make_path("data", "a"), make_path("metadata", "labels")), CONFIGMAP)
    assert removed == {"data": None, "metadata": None}


def test_remove_items_removes_list_items_by_key() -> None:
    obj = pod({"name": "a"}, {"name": "b"})
    removed = remove_items(obj, FieldSet.of(make_path("spec", "containers", {"name": "a"})), POD)
    assert removed == pod({"name": "b"})


def test_ensure_named_fields_adds_declared_struct_fields_with_owned_children() -> None:
    fields = FieldSet.of(make_path("spec", "containers", {"name": "a"}, "env", {"name": "X"}), make_path("data", "k"))
    ensured = ensure_named_fields_are_members(fields, POD) - fields
    assert ensured.strings() == [".spec", ".spec.containers", '.spec.containers[name="a"].env']


_CONTAINERS = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.sampled_from(["a", "b"]),
            "image": st.sampled_from(["x", "y", 1]),
            "resources": st.sampled_from([{}, {"limits": {"cpu": "1"}}, None]),
            "securityContext": st.sampled_from([{}, {"seccompProfile": {}}, {"seccompProfile": {"type": ""}}]),
            "ports": st.lists(
                st.fixed_dictionaries(
                    {}, optional={"containerPort": st.sampled_from([80, 81]), "protocol": st.just("UDP")}
                ),
                max_size=2,
            ),
        },
    ),
    max_size=3,
)


def _outcome(run: Callable[[], Any]) -> Any:
    try:
        return run()
    except TypedError as error:
        return str(error)


@settings(max_examples=150, deadline=None)
@given(_CONTAINERS, _CONTAINERS)
def test_compare_with_zero_values_sees_what_with_zero_values_makes(old: list[Any], new: list[Any]) -> None:
    filled = _outcome(lambda: compare(with_zero_values(pod(*old), POD), with_zero_values(pod(*new), POD), POD))
    assert _outcome(lambda: compare(pod(*old), pod(*new), POD, zero_values=True)) == filled


def test_compare_with_zero_values_names_an_item_by_its_filled_key() -> None:
    result = compare(pod(), pod({"image": "x"}), POD, zero_values=True)
    assert '.spec.containers[name=""].image' in result.added.strings()
