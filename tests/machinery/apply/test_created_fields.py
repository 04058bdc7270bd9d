"""A create's comparison is reused across objects that differ only in strings held in maps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from svc.api.schemas import Schema
from svc.machinery.apply import ignored_fields
from svc.machinery.apply.created_fields import created_fields
from svc.machinery.apply.shapes import shape_of
from svc.machinery.apply.typed import TypedError, compare

POD = shape_of(Schema.named("io.k8s.api.core.v1.Pod"))
ROLE_BINDING = shape_of(Schema.named("io.k8s.api.rbac.v1.RoleBinding"))  # roleRef.name: a required string
UNTYPED = shape_of(None)
IGNORED = ignored_fields([("status",)])

_STRINGS = st.sampled_from(["", "a", "b"])
_SCALARS = st.one_of(_STRINGS, st.integers(-1, 1), st.booleans(), st.none())
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(["name", "x"]), inner, max_size=2),
    max_leaves=6,
)
_CONTAINER = st.fixed_dictionaries({}, optional={"name": _STRINGS, "image": _STRINGS, "args": st.lists(_STRINGS)})
_OBJECTS = st.fixed_dictionaries(
    {},
    optional={
        "metadata": st.fixed_dictionaries(
            {}, optional={"name": _SCALARS, "labels": st.dictionaries(_STRINGS, _SCALARS, max_size=2)}
        ),
        "spec": st.fixed_dictionaries(
            {},
            optional={"containers": st.lists(_CONTAINER, max_size=2), "nodeName": _SCALARS, "x": _VALUES},
        ),
        "roleRef": st.fixed_dictionaries({}, optional={"name": _STRINGS, "kind": _SCALARS}),
        "subjects": st.lists(st.fixed_dictionaries({"kind": _STRINGS, "name": _STRINGS}), max_size=2),
        "x": _VALUES,
    },
)


def _other_strings(value: dict[str, Any]) -> dict[str, Any]:
    """`value` with every non-empty string reached through maps only changed (lists kept)."""
    out: dict[str, Any] = {}
    for name, item in value.items():
        if isinstance(item, str) and item:
            out[name] = item + "-other"
        elif isinstance(item, dict):
            out[name] = _other_strings(item)
        else:
            out[name] = item
    return out


def _walk(obj: dict[str, Any], shape: Any) -> Any:
    try:
        return compare({}, obj, shape, zero_values=True).within(IGNORED.owned)
    except TypedError as error:
        return str(error)


def _reused(obj: dict[str, Any], shape: Any) -> Any:
    try:
        return created_fields(obj, shape, IGNORED)
    except TypedError as error:
        return str(error)


def _restrung(value: Any, draw: Callable[[], str]) -> Any:
    """`value` with every string, in maps and lists alike, replaced by a drawn one."""
    if isinstance(value, str):
        return draw()
    if isinstance(value, list):
        return [_restrung(item, draw) for item in value]
    if isinstance(value, dict):
        return {name: _restrung(item, draw) for name, item in value.items()}
    return value


@settings(max_examples=300, deadline=None)
@given(_OBJECTS, st.sampled_from([POD, ROLE_BINDING, UNTYPED]), st.data())
def test_a_kept_comparison_is_what_walking_the_object_finds(obj: dict[str, Any], shape: Any, data: Any) -> None:
    """Whatever was kept before (the object with some or all of its strings changed, or with those
    reached through maps only changed), each create's comparison is the walk's."""
    variants = [
        _restrung(obj, lambda: data.draw(_STRINGS)),
        _restrung(obj, lambda: "c"),
        _restrung(obj, lambda: ""),
        _other_strings(obj),
        obj,
    ]
    for variant in variants:
        assert _reused(variant, shape) == _walk(variant, shape)


def test_objects_differing_in_a_list_item_key_are_compared_apart() -> None:
    first = created_fields({"spec": {"containers": [{"name": "a"}]}}, POD, IGNORED)
    second = created_fields({"spec": {"containers": [{"name": "b"}]}}, POD, IGNORED)
    assert '.spec.containers[name="a"]' in first.added.strings()
    assert '.spec.containers[name="b"]' in second.added.strings()


def test_an_empty_string_is_told_from_a_set_one() -> None:
    """`roleRef` (atomic, always present) starts as its zero value, whose `name` is `""`: only a set
    name changes it."""
    assert not created_fields({"roleRef": {"name": ""}}, ROLE_BINDING, IGNORED).modified
    assert created_fields({"roleRef": {"name": "view"}}, ROLE_BINDING, IGNORED).modified.strings() == [".roleRef"]
