"""Pruning and defaulting invariants over generated schemas and objects, and validation that never
raises whatever JSON arrives (hypothesis)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from svc.api.crd.defaulting import apply_defaults
from svc.api.crd.pruning import prune
from svc.api.crd.schema import CustomResourceSchema
from svc.api.crd.structural import Structural, structural

NAMES = st.sampled_from(["a", "b", "c", "d"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(NAMES, inner, max_size=3)),
    max_leaves=12,
)


def _schemas() -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.builds(
        lambda kind, default: {"type": kind, **({"default": default} if default is not None else {})},
        st.sampled_from(["string", "integer", "boolean"]),
        st.one_of(st.none(), st.just("x"), st.just(1)),
    )

    def extend(inner: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
        objects = st.builds(
            lambda props, preserve, with_default: {
                "type": "object",
                "properties": props,
                **({"x-kubernetes-preserve-unknown-fields": True} if preserve else {}),
                **({"default": {}} if with_default else {}),
            },
            st.dictionaries(NAMES, inner, max_size=3),
            st.booleans(),
            st.booleans(),
        )
        arrays = st.builds(lambda items: {"type": "array", "items": items}, inner)
        maps = st.builds(lambda values: {"type": "object", "additionalProperties": values}, inner)
        return st.one_of(objects, arrays, maps)

    return st.recursive(leaf, extend, max_leaves=8)


def _conforming(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Objects shaped by the schema, with extra unknown members sprinkled in."""
    kind = schema.get("type")
    if "properties" in schema:
        known = st.fixed_dictionaries({}, optional={k: _conforming(v) for k, v in schema["properties"].items()})
        return st.builds(lambda a, b: {**b, **a}, known, st.dictionaries(st.sampled_from(["x", "y"]), JSON, max_size=2))
    if "additionalProperties" in schema:
        return st.dictionaries(NAMES, _conforming(schema["additionalProperties"]), max_size=3)
    if kind == "array":
        return st.lists(_conforming(schema["items"]), max_size=3)
    return JSON


@st.composite
def schema_and_object(draw: st.DrawFn) -> tuple[Structural, dict[str, Any]]:
    spec = draw(_schemas())
    root = {"type": "object", "properties": {"spec": spec}}
    obj = {"spec": draw(_conforming(spec)), "junk": draw(JSON)}
    return structural(root), obj


def _declared_paths(value: Any, node: Structural | None, path: str = "") -> set[str]:
    """Paths of members the schema declares (or keeps as unknown), as present in `value`."""
    found: set[str] = set()
    if node is None:
        return found
    if type(value) is dict:
        for key, item in value.items():
            sub = node.child(key)
            if sub is not None or node.preserve_unknown:
                here = f"{path}.{key}" if path else key
                found.add(here)
                found |= _declared_paths(item, sub, here)
    elif type(value) is list:
        for index, item in enumerate(value):
            found |= _declared_paths(item, node.items, f"{path}[{index}]")
    return found


def _all_paths(value: Any, path: str = "") -> set[str]:
    found: set[str] = set()
    if type(value) is dict:
        for key, item in value.items():
            here = f"{path}.{key}" if path else key
            found.add(here)
            found |= _all_paths(item, here)
    elif type(value) is list:
        for index, item in enumerate(value):
            found |= _all_paths(item, f"{path}[{index}]")
    return found


@settings(max_examples=100, deadline=None)
@given(schema_and_object())
def test_pruning_is_idempotent(case: tuple[Structural, dict[str, Any]]) -> None:
    root, obj = case
    prune(obj, root)
    once = copy.deepcopy(obj)
    assert prune(obj, root) == []
    assert obj == once


@settings(max_examples=100, deadline=None)
@given(schema_and_object())
def test_pruning_never_drops_declared_fields(case: tuple[Structural, dict[str, Any]]) -> None:
    root, obj = case
    declared = _declared_paths(obj, root)
    dropped = set(prune(obj, root))
    assert declared <= _all_paths(obj)
    assert not any(path in declared for path in dropped)


@settings(max_examples=100, deadline=None)
@given(schema_and_object())
def test_pruning_after_defaulting_keeps_the_defaults(case: tuple[Structural, dict[str, Any]]) -> None:
    root, obj = case
    prune(obj, root)
    apply_defaults(obj, root)
    defaulted = copy.deepcopy(obj)
    assert prune(obj, root) == []
    assert obj == defaulted


RULED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-kubernetes-validations": [{"rule": "self.metadata.name.size() < 20", "message": "long"}],
    "properties": {
        "spec": {
            "type": "object",
            "x-kubernetes-validations": [
                {"rule": "!has(self.a) || self.a.size() < 3", "messageExpression": "'a is ' + string(self.a)"},
                {"rule": "self.b == oldSelf.b", "optionalOldSelf": False},
            ],
            "required": ["a"],
            "properties": {
                "a": {"type": "string", "maxLength": 5, "pattern": "^x"},
                "b": {"type": "integer", "minimum": 0},
                "c": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["k"],
                    "items": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]},
                },
                "d": {"x-kubernetes-int-or-string": True, "x-kubernetes-validations": [{"rule": "self != 'z'"}]},
            },
        },
    },
}


@settings(max_examples=150, deadline=None)
@given(spec=JSON, old=st.one_of(st.none(), JSON), name=st.one_of(st.text(max_size=5), st.integers()))
def test_validation_reports_errors_and_never_raises(spec: Any, old: Any, name: Any) -> None:
    schema = CustomResourceSchema(RULED_SCHEMA)
    obj = {"metadata": {"name": name}, "spec": spec}
    before = None if old is None else {"metadata": {"name": "x"}, "spec": old}
    for error in schema.validate(obj, before) + schema.validate_status(obj, before or obj):
        assert str(error)
    schema.prune(obj)
    schema.apply_defaults(obj)


KEYWORDS = st.sampled_from(
    [
        "type",
        "properties",
        "items",
        "additionalProperties",
        "required",
        "enum",
        "pattern",
        "format",
        "maximum",
        "maxItems",
        "default",
        "nullable",
        "anyOf",
        "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-validations",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-preserve-unknown-fields",
    ]
)
SCHEMAISH = st.recursive(
    st.dictionaries(KEYWORDS, JSON, max_size=3),
    lambda inner: st.dictionaries(
        KEYWORDS, st.one_of(JSON, inner, st.dictionaries(NAMES, inner, max_size=2)), max_size=4
    ),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(schema=SCHEMAISH, obj=JSON)
def test_a_malformed_schema_never_makes_the_facade_raise(schema: dict[str, Any], obj: Any) -> None:
    compiled = CustomResourceSchema(schema)
    target = {"spec": obj}
    compiled.prune(target)
    compiled.apply_defaults(target)
    compiled.validate(target, None)
    compiled.node_at(["spec"])
