"""The changes of a create (an object compared with nothing), kept per object shape.

Every create records the fields it set, which takes a typed walk of the whole object against the
type's zero value; for a Pod that walk is the largest single cost of the create path. Objects of
one kind written by one client mostly differ only in strings (names, label values, data), and a
string held in maps alone cannot change the outcome beyond being empty or not: the walk compares
it with an absent or zero value (`""`), and only list items are told apart by their contents (key
fields, set members). So the comparison is kept under the object with every such string replaced
by `""` or `"x"`, and objects that differ only there share one walk. Lists are part of the key
as they are, so whatever names a list item is matched exactly.
"""

from __future__ import annotations

from typing import Any

import orjson

from svc.machinery.apply.field_filter import FieldFilter
from svc.machinery.apply.shapes import Shape
from svc.machinery.apply.typed import Comparison, compare

# Shapes are few per kind; a few hundred keys cover the clients and templates writing at once.
_KEPT = 256
# A larger form is compared every time rather than kept as a key (at most 4 MiB of keys in all).
_LARGEST_KEY = 16 * 1024
_SEEN: dict[tuple[Shape, FieldFilter, bytes], Comparison] = {}


def created_fields(after: dict[str, Any], shape: Shape, ignored: FieldFilter) -> Comparison:
    """`compare({}, after, shape, zero_values=True).within(ignored.owned)`, reused across objects of
    the same form."""
    try:
        form = orjson.dumps(_masked(after))
    except orjson.JSONEncodeError:  # integers beyond 64 bits: no key, but the walk still holds
        return _walked(after, shape, ignored)
    if len(form) > _LARGEST_KEY:
        return _walked(after, shape, ignored)
    key = (shape, ignored, form)
    found = _SEEN.get(key)
    if found is None:
        found = _walked(after, shape, ignored)
        if len(_SEEN) >= _KEPT:
            _SEEN.clear()
        _SEEN[key] = found
    return found


def _walked(after: dict[str, Any], shape: Shape, ignored: FieldFilter) -> Comparison:
    return compare({}, after, shape, zero_values=True).within(ignored.owned)


def _masked(value: dict[str, Any]) -> dict[str, Any]:
    """`value` with each string reached through maps only as `""` or `"x"` (lists kept whole)."""
    out = {}
    for name, item in value.items():
        kind = type(item)
        if kind is str:
            out[name] = "x" if item else ""
        elif kind is dict:
            out[name] = _masked(item)
        else:
            out[name] = item
    return out
