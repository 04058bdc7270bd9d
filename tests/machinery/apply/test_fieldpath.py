"""Field paths, field sets and the FieldsV1 encoding."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.machinery.apply.fieldpath import FieldPathError, FieldSet, PathElement, make_path, path_string

NGINX = {"name": "nginx"}


def test_elements_serialize_in_fieldsv1_form() -> None:
    assert PathElement.field("replicas").serialize() == "f:replicas"
    assert PathElement.key({"protocol": "TCP", "containerPort": 80}).serialize() == (
        'k:{"containerPort":80,"protocol":"TCP"}'
    )
    assert PathElement.value("a<b").serialize() == 'v:"a\\u003cb"'
    assert PathElement.value(1.0).serialize() == "v:1"
    assert PathElement.index(3).serialize() == "i:3"


def test_elements_order_field_key_value_index_then_content() -> None:
    ordered = [
        PathElement.field("a"),
        PathElement.field("b"),
        PathElement.key({"name": "a"}),
        PathElement.value(2),
        PathElement.value(10),
        PathElement.value("1"),
        PathElement.value(True),
        PathElement.value(None),
        PathElement.index(0),
    ]
    assert sorted(reversed(ordered)) == ordered


def test_numbers_compare_by_value_but_booleans_are_not_numbers() -> None:
    assert PathElement.value(1) == PathElement.value(1.0)
    assert PathElement.value(True) != PathElement.value(1)


def test_path_strings_match_upstream_conflict_paths() -> None:
    image = make_path("spec", "template", "spec", "containers", NGINX, "image")
    assert path_string(image) == '.spec.template.spec.containers[name="nginx"].image'
    port = make_path("ports", {"protocol": "TCP", "containerPort": 80})
    assert path_string(port) == '.ports[containerPort=80,protocol="TCP"]'
    assert path_string((PathElement.field("finalizers"), PathElement.value("a\n"))) == '.finalizers[="a\\n"]'
    assert path_string(make_path("args", 0)) == ".args[0]"
    assert path_string((PathElement.value(1e6),)) == "[=1e+06]"


def test_make_path_rejects_what_is_not_an_element() -> None:
    with pytest.raises(FieldPathError, match="unable to make"):
        make_path(1.5)
    with pytest.raises(FieldPathError, match="at least one key"):
        make_path("list", {})


def test_fieldsv1_marks_a_member_with_children_by_a_dot_first() -> None:
    fields = FieldSet.of(make_path("spec", "ports"), make_path("spec", "ports", {"port": 80}), make_path("data"))
    assert orjson.dumps(fields.to_fields_v1()) == (
        b'{"f:data":{},"f:spec":{"f:ports":{".":{},"k:{\\"port\\":80}":{}}}}'
    )


def test_fieldsv1_reads_members_children_and_leaves() -> None:
    document = {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:data": {}}
    assert FieldSet.from_fields_v1(document) == FieldSet.of(
        make_path("metadata", "labels"), make_path("metadata", "labels", "app"), make_path("data")
    )


def test_fieldsv1_skips_unknown_element_types() -> None:
    assert FieldSet.from_fields_v1({"f:a": {"x:future": {}}, "z:other": {"f:b": {}}}) == FieldSet.of(make_path("a"))


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"f": {}}, "key must be 2 characters long"),
        ({"fx": {}}, "missing colon: fx"),
        ({"i:one": {}}, 'parsing "one": invalid syntax'),
        ({"k:[1]": {}}, "a key element must be a JSON object"),
        ({"v:{": {}}, "parsing 'v:{'"),
        ({"f:a": 3}, "must be a JSON object"),
        ([], "must be a JSON object"),
    ],
)
def test_fieldsv1_rejects_malformed_documents(document: object, message: str) -> None:
    with pytest.raises(FieldPathError, match=message):
        FieldSet.from_fields_v1(document)


def test_iteration_lists_members_before_deeper_paths() -> None:
    fields = FieldSet.of(make_path("a", "b", "c"), make_path("a", "z"), make_path("b"))
    assert fields.strings() == [".b", ".a.z", ".a.b.c"]


def test_set_algebra_is_exact_on_paths() -> None:
    left = FieldSet.of(make_path("a"), make_path("a", "b"))
    right = FieldSet.of(make_path("a", "b"), make_path("c"))
    assert (left | right).strings() == [".a", ".c", ".a.b"]
    assert (left & right).strings() == [".a.b"]
    assert (left - right).strings() == [".a"]


def test_recursive_difference_drops_everything_below_an_excluded_path() -> None:
    fields = FieldSet.of(make_path("status"), make_path("status", "replicas"), make_path("spec", "replicas"))
    assert fields.recursive_difference(FieldSet.of(make_path("status"))).strings() == [".spec.replicas"]


def test_grouping_by_first_element_separates_members_from_deeper_paths() -> None:
    fields = FieldSet.of(make_path("spec", "replicas"), make_path("spec"), make_path("data", "a"))
    groups = fields.by_first_element()
    assert groups[PathElement.field("spec")] == (True, FieldSet.of(make_path("replicas")))
    assert groups[PathElement.field("data")] == (False, FieldSet.of(make_path("a")))


_elements = st.one_of(
    st.builds(PathElement.field, st.text(min_size=1, max_size=5)),
    st.builds(PathElement.index, st.integers(0, 20)),
    st.builds(PathElement.value, st.one_of(st.integers(-5, 5), st.text(max_size=4), st.booleans())),
    st.builds(
        PathElement.key,
        st.dictionaries(
            st.sampled_from(["name", "port", "protocol"]), st.one_of(st.integers(0, 9), st.text(max_size=3)), min_size=1
        ),
    ),
)
_field_sets = st.builds(FieldSet, st.lists(st.lists(_elements, min_size=1, max_size=4).map(tuple), max_size=12))


@given(_field_sets)
def test_fieldsv1_round_trips(fields: FieldSet) -> None:
    encoded = orjson.dumps(fields.to_fields_v1())
    decoded = FieldSet.from_fields_v1(orjson.loads(encoded))
    assert decoded == fields
    assert orjson.dumps(decoded.to_fields_v1()) == encoded


@given(
    st.one_of(
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.text(),
        st.lists(st.integers()),
    )
)
def test_a_single_key_is_the_key_of_that_one_field(value: object) -> None:
    element = PathElement.single_key("name", value)
    assert element == PathElement.key({"name": value})
    assert element.serialize() == PathElement.key({"name": value}).serialize()


def test_a_recursive_difference_that_drops_nothing_is_the_same_set() -> None:
    fields = FieldSet.of(make_path("spec", "replicas"), make_path("metadata", "labels", "a"))
    assert fields.recursive_difference(FieldSet.of(make_path("status"))) == fields
    assert fields.recursive_difference(FieldSet.of(make_path("spec"))).strings() == [".metadata.labels.a"]
