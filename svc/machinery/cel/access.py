"""Runtime access to values: field selection, indexing and optionals, with CEL's errors.

Compiled closures call these for anything the fast paths in `compiler` do not settle: a missing
key, a non-map operand, an optional, a library object that answers `cel_select`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.operators import lookup
from svc.machinery.cel.values import LISTS, NONE, CelError, NoSuchOverload, Optional, Uint

Closure = Callable[[dict[str, Any]], Any]
# The activation key holding the evaluation's `Cost`; no CEL identifier can spell it.
COST: Final = "\x00cost"


def apply_function(fn: Callable[..., Any], name: str, values: Any) -> Any:
    try:
        return fn(*values)
    except TypeError as err:
        raise NoSuchOverload(name) from err


def field_path(name: str, fields: tuple[str, ...], general: Closure) -> Closure:
    """Plain dict lookups for a field path; anything unusual (a missing key, a non-map) takes the
    general path, which gives CEL's answer or error."""
    units = 1 + len(fields)
    if len(fields) == 1:
        (first,) = fields

        def one(act: dict[str, Any]) -> Any:
            try:
                value = act[name]
                if type(value) is not dict:
                    return general(act)
                value = value[first]
            except KeyError:
                return general(act)
            act[COST].used += units
            return value

        return one

    def walk(act: dict[str, Any]) -> Any:
        try:
            value = act[name]
            for field in fields:
                if type(value) is not dict:
                    return general(act)
                value = value[field]
        except KeyError:
            return general(act)
        act[COST].used += units
        return value

    return walk


def select(value: Any, field: str) -> Any:
    tv = type(value)
    if tv is dict:
        if field in value:
            return value[field]
        raise CelError(f"no such key: {field}")
    if tv is Optional:
        return select_optional(value, field)
    select = getattr(value, "cel_select", None)
    if select is not None:
        return select(field)
    raise CelError(f"type '{tv.__name__}' does not support field selection")


def select_optional(value: Any, field: str) -> Optional:
    if type(value) is Optional:
        if not value.has_value():
            return NONE
        value = value.value
    if type(value) is dict:
        return Optional(value[field]) if field in value else NONE
    return Optional(select(value, field))


def index(container: Any, key: Any) -> Any:
    tc = type(container)
    if tc in LISTS:
        tk = type(key)
        if (tk is float and key.is_integer()) or tk is Uint:
            key = int(key)
        elif tk is not int:
            raise NoSuchOverload("_[_]")
        if not 0 <= key < len(container):
            raise CelError(f"index out of bounds: {key}")
        return container[key]
    if tc is dict:
        found, value = lookup(container, key)
        if not found:
            raise CelError(f"no such key: {key}")
        return value
    if tc is Optional:
        return index_optional(container, key)
    raise NoSuchOverload("_[_]")


def index_optional(container: Any, key: Any) -> Optional:
    if type(container) is Optional:
        if not container.has_value():
            return NONE
        container = container.value
    if type(container) in LISTS:
        if type(key) is int and not 0 <= key < len(container):
            return NONE
        return Optional(index(container, key))
    if type(container) is dict:
        found, value = lookup(container, key)
        return Optional(value) if found else NONE
    raise NoSuchOverload("_[?_]")


def optional_or(target: Closure, alternative: Closure) -> Closure:
    def either(act: dict[str, Any]) -> Any:
        value = target(act)
        if type(value) is not Optional:
            raise NoSuchOverload("or")
        if value.has_value():
            return value
        other = alternative(act)
        if type(other) is not Optional:
            raise NoSuchOverload("or")
        return other

    return either


# -- macros ------------------------------------------------------------------------------------
