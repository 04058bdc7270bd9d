"""Strategic merge patch: the upstream cases in strategic_cases.yaml, and the guarantees around them."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from svc.api.schemas import Schema
from svc.machinery.patch.errors import PatchError
from svc.machinery.patch.strategic import (
    apply_strategic_merge_patch,
    create_three_way_merge_patch,
    create_two_way_merge_patch,
)

CASES = yaml.safe_load((Path(__file__).parent / "strategic_cases.yaml").read_text())
POD = Schema.named("io.k8s.api.core.v1.Pod")


def _schema(case: dict[str, Any]) -> Schema | None:
    return Schema.named(case["schema"]) if case["schema"] else None


def _named(cases: list[dict[str, Any]]) -> Any:
    return pytest.mark.parametrize("case", cases, ids=[case["name"] for case in cases])


def test_corpus_is_large_enough() -> None:
    assert len(CASES["apply"]) + len(CASES["two_way"]) + len(CASES["three_way"]) >= 40


@_named([case for case in CASES["apply"] if "error" not in case])
def test_apply(case: dict[str, Any]) -> None:
    assert apply_strategic_merge_patch(case["original"], case["patch"], _schema(case)) == case["result"]


@_named([case for case in CASES["apply"] if "error" in case])
def test_apply_rejects(case: dict[str, Any]) -> None:
    with pytest.raises(PatchError, match=re.escape(case["error"])):
        apply_strategic_merge_patch(case["original"], case["patch"], _schema(case))


@_named(CASES["two_way"])
def test_two_way_patch(case: dict[str, Any]) -> None:
    assert create_two_way_merge_patch(case["original"], case["modified"], _schema(case)) == case["patch"]


@_named(CASES["two_way"])
def test_two_way_patch_gives_modified(case: dict[str, Any]) -> None:
    assert apply_strategic_merge_patch(case["original"], case["patch"], _schema(case)) == case["modified"]


@_named(CASES["three_way"])
def test_three_way_patch(case: dict[str, Any]) -> None:
    patch = create_three_way_merge_patch(case["original"], case["modified"], case["current"], _schema(case))
    assert patch == case["patch"]


@_named(CASES["three_way"])
def test_three_way_patch_result(case: dict[str, Any]) -> None:
    assert apply_strategic_merge_patch(case["current"], case["patch"], _schema(case)) == case["result"]


def _by_name(section: str, name: str) -> dict[str, Any]:
    return next(case for case in CASES[section] if case["name"] == name)


@pytest.mark.parametrize(
    ("section", "name"),
    [
        ("three_way", "a container added and one removed, with a server-only one kept"),
        ("apply", "$setElementOrder adds and orders finalizers"),
        ("apply", "$retainKeys clears the other member of a union"),
    ],
)
def test_apply_leaves_its_inputs_alone(section: str, name: str) -> None:
    case = _by_name(section, name)
    original = case.get("current", case["original"])
    before = copy.deepcopy((original, case["patch"]))
    apply_strategic_merge_patch(original, case["patch"], _schema(case))
    assert (original, case["patch"]) == before


def test_create_patches_leave_their_inputs_alone() -> None:
    case = _by_name("three_way", "a container added and one removed, with a server-only one kept")
    documents = (case["original"], case["modified"], case["current"])
    before = copy.deepcopy(documents)
    create_two_way_merge_patch(case["original"], case["modified"], POD)
    create_three_way_merge_patch(*documents, POD)
    assert documents == before


def test_result_shares_nothing_with_the_patch() -> None:
    patch = {"spec": {"containers": [{"name": "c1", "env": [{"name": "e1"}]}]}}
    result = apply_strategic_merge_patch({}, patch, POD)
    result["spec"]["containers"][0]["env"].append({"name": "e2"})
    assert patch == {"spec": {"containers": [{"name": "c1", "env": [{"name": "e1"}]}]}}


@pytest.mark.parametrize(
    ("finalizers", "patch", "code"),
    [
        (["f1"], {"$deleteFromPrimitiveListfinalizers": ["f1"]}, 400),
        ([["f1"]], {"finalizers": [["f2"]]}, 422),
        (["f1"], {"finalizers": [{"name": "f2"}]}, 500),
    ],
    ids=["bad format", "list of lists", "other errors"],
)
def test_errors_carry_upstream_status(finalizers: list[Any], patch: dict[str, Any], code: int) -> None:
    with pytest.raises(PatchError) as caught:
        apply_strategic_merge_patch({"metadata": {"finalizers": finalizers}}, {"metadata": patch}, POD)
    assert caught.value.code == code


@pytest.mark.parametrize("document", [[], "text", {"key": {1, 2}}], ids=["list", "string", "not JSON"])
def test_documents_must_be_json_objects(document: Any) -> None:
    with pytest.raises(PatchError, match="invalid JSON document"):
        apply_strategic_merge_patch({}, document, POD)


_NAMES = st.sampled_from(["c1", "c2", "c3", "c4"])
_CONTAINER = st.fixed_dictionaries(
    {"name": _NAMES},
    optional={
        "image": st.sampled_from(["a", "b"]),
        "args": st.lists(st.sampled_from(["x", "y"]), max_size=2),
        "env": st.lists(
            st.fixed_dictionaries({"name": _NAMES}, optional={"value": _NAMES}),
            max_size=3,
            unique_by=lambda env: env["name"],
        ),
    },
)
_POD = st.fixed_dictionaries(
    {},
    optional={
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "labels": st.dictionaries(_NAMES, _NAMES, max_size=3),
                "finalizers": st.lists(_NAMES, unique=True, max_size=3).map(sorted),
            },
        ),
        "spec": st.fixed_dictionaries(
            {},
            optional={
                "containers": st.lists(_CONTAINER, max_size=3, unique_by=lambda container: container["name"]),
                "nodeSelector": st.dictionaries(_NAMES, _NAMES, max_size=2),
                "tolerations": st.lists(st.fixed_dictionaries({"key": _NAMES}), max_size=2),
            },
        ),
    },
)


@settings(max_examples=150, deadline=None)
@given(_POD, _POD)
def test_two_way_patch_turns_original_into_modified(original: dict[str, Any], modified: dict[str, Any]) -> None:
    patch = create_two_way_merge_patch(original, modified, POD)
    assert apply_strategic_merge_patch(original, patch, POD) == modified


@settings(max_examples=150, deadline=None)
@given(_POD, _POD)
def test_three_way_patch_on_unchanged_object_gives_modified(original: dict[str, Any], modified: dict[str, Any]) -> None:
    patch = create_three_way_merge_patch(original, modified, original, POD)
    assert apply_strategic_merge_patch(original, patch, POD) == modified


_KEYS = st.sampled_from(
    [
        *("metadata", "spec", "finalizers", "containers", "volumes", "name", "image", "env", "tolerations", "x"),
        *("$patch", "$retainKeys", "$setElementOrder/containers", "$deleteFromPrimitiveList/finalizers"),
    ]
)
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["delete", "replace", "merge", "c1"])
)
_ANY = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, _ANY, max_size=4), st.dictionaries(_KEYS, _ANY, max_size=4))
def test_any_patch_applies_or_raises_patch_error(original: dict[str, Any], patch: dict[str, Any]) -> None:
    try:
        apply_strategic_merge_patch(original, patch, POD)
        create_three_way_merge_patch(original, patch, original, POD)
    except PatchError:
        pass
