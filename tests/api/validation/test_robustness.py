"""Validation never raises, whatever shape a member has: bad input gets field errors, never a 500.

Decoding refuses most ill-typed bodies before validation, but `null` passes everywhere and some
members are free-form; so any member of a valid object may be replaced by any JSON value here.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from svc.api.brand import SVC
from svc.api.validation import rules_for
from tests.api.validation import test_core_kinds, test_more_kinds, test_pods, test_workloads

FIXTURES: list[tuple[str, str, dict[str, Any]]] = [
    ("", "Pod", test_pods.POD),
    ("", "PodTemplate", test_pods.TEMPLATE),
    *test_workloads.VALID,
    *(("", kind, obj) for kind, obj in test_core_kinds.VALID),
    *test_more_kinds.VALID,
]

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


def _replaced(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    result = copy.deepcopy(obj)
    node: Any = result
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return result


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_validation_never_raises(data: st.DataObject) -> None:
    group, kind, obj = data.draw(st.sampled_from(FIXTURES))
    path = data.draw(st.sampled_from(_paths(obj)))
    broken = _replaced(obj, path, data.draw(JSON))
    rules = rules_for(group, kind, SVC)
    assert rules is not None
    rules.validate(broken)
    rules.validate_update(broken, obj)
    rules.validate_update(obj, broken)
