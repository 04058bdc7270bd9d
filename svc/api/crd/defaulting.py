"""Defaulting from a CRD schema's `default`s, as upstream's structural defaulting.

A declared property that is absent, or null where the schema is not `nullable`, gets a copy of its
default; list items and additionalProperties values that are such nulls get their node's default.
Defaults apply top-down, so a default object is itself defaulted below. Upstream runs this on
create and update and again when an object is read from storage (old objects gain new defaults).
A `default: null` sets nothing. Before defaulting, upstream removes the nulls the schema allows
neither as a value nor as a place for a default (`drop_disallowed_nulls`).
"""

from __future__ import annotations

import copy
from typing import Any

from svc.api.crd.structural import Structural


def apply_defaults(value: Any, node: Structural | None) -> None:
    """Fill defaults in place below `value` (the whole object when `node` is the root)."""
    if node is None:
        return
    if type(value) is dict:
        for key, prop in node.properties.items():
            if _wants_default(value.get(key, _ABSENT), prop):
                value[key] = copy.deepcopy(prop.default)
        extra = node.additional_properties
        for key, item in value.items():
            prop = node.properties.get(key)
            if prop is not None:
                apply_defaults(item, prop)
            elif extra is not None:
                if item is None and _wants_default(item, extra):
                    value[key] = item = copy.deepcopy(extra.default)
                apply_defaults(item, extra)
    elif type(value) is list and node.items is not None:
        items = node.items
        for index, item in enumerate(value):
            if item is None and _wants_default(item, items):
                value[index] = item = copy.deepcopy(items.default)
            apply_defaults(item, items)


_ABSENT = object()


def _wants_default(current: Any, node: Structural) -> bool:
    if not node.has_default or node.default is None:
        return False
    return current is _ABSENT or (current is None and not node.nullable)


def drop_disallowed_nulls(value: Any, node: Structural | None) -> None:
    """Remove nulls where the schema is neither nullable nor has a default to put there, as
    upstream does before defaulting (a `field: null` from a client means "unset")."""
    if type(value) is dict:
        for key in list(value):
            sub = node.child(key) if node is not None else None
            item = value[key]
            if item is None and sub is not None and not sub.nullable and not sub.has_default:
                del value[key]
            else:
                drop_disallowed_nulls(item, sub)
    elif type(value) is list:
        items = node.items if node is not None else None
        for item in value:
            drop_disallowed_nulls(item, items)
