"""Reading and filling fields of JSON-shaped objects the way upstream's typed defaulters see them.

Upstream defaults Go structs, so what counts as "unset" depends on the Go field: a value field (a
`string` or `int32`) is unset when it holds its zero value, so an explicit `""` or `0` is replaced; a
pointer field (`*int32`, `*bool`, a nested `*struct`) is unset only when absent or null, so an explicit
`0` or `false` stays. Each filler names which of the two it models. A field of the wrong JSON type is
left alone: decoding would have refused it upstream, and validation reports it here.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

Obj = dict[str, Any]


def child(obj: Any, key: str) -> Obj | None:
    """The object at `key`, or None when it is absent, null or not an object."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else None


def child_or_new(obj: Obj, key: str) -> Obj | None:
    """The object at `key`, created empty when absent or null (a Go non-pointer struct always exists)."""
    if obj.get(key) is None:
        obj[key] = {}
    return child(obj, key)


def entries(obj: Any, key: str) -> Iterator[Obj]:
    """The objects in the list at `key`; other items and non-lists yield nothing."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def is_zero(value: Any) -> bool:
    """Whether a value field holds Go's zero value (or is absent)."""
    return value is None or value == "" or value is False or (type(value) is int and value == 0)


def fill(obj: Obj, key: str, value: Any) -> None:
    """Default a value field: absent, null and the zero value are all unset."""
    if is_zero(obj.get(key)):
        obj[key] = copy.deepcopy(value)


def fill_nil(obj: Obj, key: str, value: Any) -> None:
    """Default a pointer field: only absent or null is unset."""
    if obj.get(key) is None:
        obj[key] = copy.deepcopy(value)


def fill_empty(obj: Obj, key: str, value: Any) -> None:
    """Default a slice or map that upstream fills when its length is zero."""
    current = obj.get(key)
    if current is None or current == [] or current == {}:
        obj[key] = copy.deepcopy(value)
