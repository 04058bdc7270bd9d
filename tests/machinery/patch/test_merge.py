"""JSON merge patch: RFC 7386's examples and the two-way diff's round trip."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svc.machinery.apply.typed import values_equal
from svc.machinery.patch.errors import PatchError
from svc.machinery.patch.merge import apply_merge_patch, create_merge_patch, json_copy

# RFC 7386 Appendix A, in its order: (original, patch, result).
RFC_EXAMPLES = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]

# RFC 7386 section 3's worked example.
RFC_DOCUMENT = {
    "title": "Goodbye!",
    "author": {"givenName": "John", "familyName": "Doe"},
    "tags": ["example", "sample"],
    "content": "This will be unchanged",
}
RFC_PATCH = {"title": "Hello!", "phoneNumber": "+01-123-456-7890", "author": {"familyName": None}, "tags": ["example"]}
RFC_RESULT = {
    "title": "Hello!",
    "author": {"givenName": "John"},
    "tags": ["example"],
    "content": "This will be unchanged",
    "phoneNumber": "+01-123-456-7890",
}


@pytest.mark.parametrize(("original", "patch", "result"), RFC_EXAMPLES, ids=[f"A{n}" for n in range(1, 16)])
def test_rfc_appendix_example(original: Any, patch: Any, result: Any) -> None:
    assert apply_merge_patch(original, patch) == result


def test_rfc_section_3_example() -> None:
    assert apply_merge_patch(RFC_DOCUMENT, RFC_PATCH) == RFC_RESULT


def test_apply_leaves_its_inputs_alone() -> None:
    before = copy.deepcopy((RFC_DOCUMENT, RFC_PATCH))
    apply_merge_patch(RFC_DOCUMENT, RFC_PATCH)
    assert before == (RFC_DOCUMENT, RFC_PATCH)


def test_result_shares_nothing_with_the_patch() -> None:
    patch = {"tags": ["a"]}
    apply_merge_patch({}, patch)["tags"].append("b")
    assert patch == {"tags": ["a"]}


def test_non_json_values_are_rejected() -> None:
    with pytest.raises(PatchError, match="invalid JSON document"):
        apply_merge_patch({}, {"a": object()})


@pytest.mark.parametrize("pair", [([], {}), ({}, "text")], ids=["list original", "string modified"])
def test_create_needs_two_objects(pair: tuple[Any, Any]) -> None:
    with pytest.raises(PatchError, match="invalid JSON document"):
        create_merge_patch(*pair)


def test_create_nulls_removed_keys_and_recurses() -> None:
    original = {"a": 1, "b": {"c": 1, "d": 2}, "e": [1]}
    modified = {"b": {"c": 1, "d": 3}, "e": [1], "f": True}
    assert create_merge_patch(original, modified) == {"a": None, "b": {"d": 3}, "f": True}


def test_json_copy_is_detached() -> None:
    value = {"a": [{"b": 1}]}
    copied = json_copy(value)
    copied["a"][0]["b"] = 2
    assert value == {"a": [{"b": 1}]}


_SCALARS = st.one_of(
    st.booleans(), st.integers(-(2**53), 2**53), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5)
)


def _values(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # A merge patch cannot set a member to null, so members are never null; array elements may be.
    return st.recursive(
        leaves,
        lambda inner: st.lists(st.none() | inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
        max_leaves=20,
    )


_OBJECTS = st.dictionaries(st.text(max_size=3), _values(_SCALARS), max_size=5)


@settings(max_examples=300, deadline=None)
@given(_OBJECTS, _OBJECTS)
def test_created_patch_turns_original_into_modified(original: dict[str, Any], modified: dict[str, Any]) -> None:
    assert values_equal(apply_merge_patch(original, create_merge_patch(original, modified)), modified)
