"""Running a kind's validation the way the server does: defaults first, then the kind's rules."""

from __future__ import annotations

import copy
from typing import Any

from svc.api.brand import SVC
from svc.api.defaults import apply_defaults
from svc.api.validation import rules_for

Cause = tuple[str, str, str]


def _defaulted(group: str, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    apply_defaults(group, kind, obj, profile=SVC)
    return obj


def causes(group: str, kind: str, obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[Cause]:
    """(field, reason, message) of every error, in order."""
    rules = rules_for(group, kind, SVC)
    assert rules is not None
    new = _defaulted(group, kind, obj)
    errors = rules.validate(new) if old is None else rules.validate_update(new, _defaulted(group, kind, old))
    return [(error.field, error.reason, error.body()) for error in errors]


def assert_causes(actual: list[Cause], expected: list[tuple[str, str, str]]) -> None:
    """Each expected (field, reason, detail fragment) matches the actual cause at the same position."""
    assert [(field, reason) for field, reason, _ in actual] == [(field, reason) for field, reason, _ in expected], (
        actual
    )
    for (_, _, message), (_, _, fragment) in zip(actual, expected, strict=True):
        assert fragment in message, (message, fragment)


def with_path(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `obj` with the dotted `path` set (list indexes as numbers, one past the end appends);
    `...` deletes it."""
    result = copy.deepcopy(obj)
    node: Any = result
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    last = parts[-1]
    if value is ...:
        del node[int(last) if isinstance(node, list) else last]
    elif isinstance(node, list) and int(last) == len(node):
        node.append(value)
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return result
