"""CEL's operators on plain Python values: heterogeneous equality, ordering, checked arithmetic.

Dispatch is by exact `type()` (never `isinstance`): Python's `bool` is an `int` and CEL's `uint`
is an `int` subclass here, and CEL keeps all three apart.
"""

from __future__ import annotations

import math
from typing import Any, Final

from svc.machinery.cel.values import (
    FALSE_KEY,
    LISTS,
    TRUE_KEY,
    CelError,
    Duration,
    MapList,
    NoSuchOverload,
    Optional,
    SetList,
    Timestamp,
    Uint,
    check_int,
    check_uint,
    duration_of,
    map_items,
    timestamp_of,
)

NUMBERS: Final = frozenset((int, Uint, float))
_SCALARS: Final = frozenset((str, bytes, bool, type(None), Timestamp, Duration))


def equals(a: Any, b: Any) -> bool:
    """CEL `==`: numbers compare across int/uint/double, other kinds never equal each other."""
    ta, tb = type(a), type(b)
    if ta is tb and ta in ORDERED:
        return a == b
    if ta in NUMBERS and tb in NUMBERS:
        return a == b
    if ta is SetList or ta is MapList:
        return _keyed_lists_equal(a, b) if tb in LISTS else False
    if ta is not tb:
        if ta in LISTS and tb in LISTS:
            return _lists_equal(a, b)
        return False
    if ta in _SCALARS:
        return a == b
    if ta in LISTS:
        return _lists_equal(a, b)
    if ta is dict:
        return _maps_equal(a, b)
    if ta is Optional:
        return a.has_value() == b.has_value() and (not a.has_value() or equals(a.value, b.value))
    return a == b


def _lists_equal(a: Any, b: Any) -> bool:
    return len(a) == len(b) and all(equals(x, y) for x, y in zip(a, b, strict=True))


def _element_key(list_: SetList | MapList, item: Any) -> Any:
    """What identifies an element of a set list (its value) or a map list (its key fields);
    None when the value cannot be hashed, so that only `equals` can find it."""
    if type(list_) is MapList:
        if type(item) is not dict:
            return None
        parts = tuple(_scalar_key(item.get(key, _MISSING)) for key in list_.keys)
        return None if None in parts else parts
    return _scalar_key(item)


def _scalar_key(value: Any) -> Any:
    kind = type(value)
    if kind in NUMBERS:
        return ("number", value)
    if kind in (str, bool, bytes, type(None)) or value is _MISSING:
        return (kind.__name__, value)
    return None


def _find(list_: SetList | MapList, item: Any, index: dict[Any, int]) -> int | None:
    """The position in `list_` of the element `item` names (by key, else by equality)."""
    key = _element_key(list_, item)
    if key is not None:
        return index.get(key)
    if type(list_) is MapList:
        return None
    return next((i for i, x in enumerate(list_) if equals(x, item)), None)


def _index(list_: SetList | MapList) -> dict[Any, int]:
    index: dict[Any, int] = {}
    for position, element in enumerate(list_):
        key = _element_key(list_, element)
        if key is not None:
            index.setdefault(key, position)
    return index


def _keyed_lists_equal(a: SetList | MapList, b: Any) -> bool:
    """Upstream's set and map list equality: same size, and every element of `b` found in `a`
    (map lists: by key, with an equal element)."""
    if len(a) != len(b):
        return False
    index = _index(a)
    for item in b:
        found = _find(a, item, index)
        if found is None:
            return False
        if type(a) is MapList and not equals(a[found], item):
            return False
    return True


def _keyed_lists_add(a: SetList | MapList, b: Any) -> SetList | MapList:
    """`a + b` for a set list (b's new elements appended) or a map list (b's elements replace
    those of `a` with their keys, in place; the others appended)."""
    out = list(a)
    index = _index(a)
    for item in b:
        found = _find(a, item, index)
        if found is None:
            key = _element_key(a, item)
            if key is not None:
                index[key] = len(out)
            out.append(item)
        elif type(a) is MapList:
            out[found] = item
    return MapList(out, a.keys) if type(a) is MapList else SetList(out)


def _maps_equal(a: dict, b: dict) -> bool:
    if len(a) != len(b):
        return False
    for key, value in map_items(a):
        found, other = lookup(b, key)
        if not found or not equals(value, other):
            return False
    return True


def lookup(mapping: dict, key: Any) -> tuple[bool, Any]:
    """Find a map entry the CEL way: `1`, `1u` and `1.0` name the same key, `true` (stored as
    `TRUE_KEY`) does not."""
    tk = type(key)
    if tk is str:
        value = mapping.get(key, _MISSING)
    elif tk is bool:
        value = mapping.get(TRUE_KEY if key else FALSE_KEY, _MISSING)
    elif tk in NUMBERS:
        if tk is float and not key.is_integer():
            return False, None
        value = mapping.get(key, _MISSING)
    else:
        raise CelError(f"unsupported key type: {tk.__name__}")
    return (False, None) if value is _MISSING else (True, value)


_MISSING: Final = object()
# Kinds whose Python operators already give CEL's answers when both sides are of the same kind
# (NaN compares false in both).
ORDERED: Final = frozenset((int, Uint, float, str, bytes, bool, Timestamp, Duration))


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1; numbers across kinds, otherwise same kinds only."""
    ta, tb = type(a), type(b)
    if ta in NUMBERS and tb in NUMBERS:
        if (ta is float and math.isnan(a)) or (tb is float and math.isnan(b)):
            raise _NaN()
        if ta is not tb and float in (ta, tb):
            a, b = float(a), float(b)
    elif ta is not tb or ta not in _SCALARS or ta is type(None):
        raise NoSuchOverload()
    return (a > b) - (a < b)


class _NaN(Exception):
    """Any ordering with NaN is false."""


def less(a: Any, b: Any) -> bool:
    if type(a) is type(b) and type(a) in ORDERED:
        return a < b
    try:
        return compare(a, b) < 0
    except _NaN:
        return False


def less_equal(a: Any, b: Any) -> bool:
    if type(a) is type(b) and type(a) in ORDERED:
        return a <= b
    try:
        return compare(a, b) <= 0
    except _NaN:
        return False


def greater(a: Any, b: Any) -> bool:
    if type(a) is type(b) and type(a) in ORDERED:
        return a > b
    try:
        return compare(a, b) > 0
    except _NaN:
        return False


def greater_equal(a: Any, b: Any) -> bool:
    if type(a) is type(b) and type(a) in ORDERED:
        return a >= b
    try:
        return compare(a, b) >= 0
    except _NaN:
        return False


def add(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if (ta is SetList or ta is MapList) and tb in LISTS:
        return _keyed_lists_add(a, b)
    if ta is tb:
        if ta is int:
            return check_int(a + b)
        if ta is Uint:
            return check_uint(a + b)
        if ta in (float, str, bytes, list):
            return a + b
        if ta is Duration:
            return duration_of(a + b)
    if (ta is Timestamp and tb is Duration) or (ta is Duration and tb is Timestamp):
        return timestamp_of(a + b)
    if ta in LISTS and tb in LISTS:
        return [*a, *b]
    raise NoSuchOverload("_+_")


def subtract(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is int:
            return check_int(a - b)
        if ta is Uint:
            return check_uint(a - b)
        if ta is float:
            return a - b
        if ta is Timestamp or ta is Duration:
            return duration_of(a - b)
    if ta is Timestamp and tb is Duration:
        return timestamp_of(a - b)
    raise NoSuchOverload("_-_")


def multiply(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is int:
            return check_int(a * b)
        if ta is Uint:
            return check_uint(a * b)
        if ta is float:
            return a * b
    raise NoSuchOverload("_*_")


def divide(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb and ta in (int, Uint):
        if b == 0:
            raise CelError("division by zero")
        quotient = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return check_int(quotient) if ta is int else Uint(quotient)
    if ta is tb is float:
        if b == 0:
            if a == 0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    raise NoSuchOverload("_/_")


def modulo(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb and ta in (int, Uint):
        if b == 0:
            raise CelError("modulus by zero")
        remainder = abs(a) % abs(b) * (1 if a >= 0 else -1)
        return remainder if ta is int else Uint(remainder)
    raise NoSuchOverload("_%_")


def negate(a: Any) -> Any:
    ta = type(a)
    if ta is int:
        return check_int(-a)
    if ta is float:
        return -a
    if ta is Duration:
        return duration_of(-a)
    raise NoSuchOverload("-_")


def logical_not(a: Any) -> bool:
    if type(a) is not bool:
        raise NoSuchOverload("!_")
    return not a


def contained_in(item: Any, container: Any) -> bool:
    tc = type(container)
    if tc in LISTS:
        return any(equals(item, x) for x in container)
    if tc is dict:
        return lookup(container, item)[0]
    raise NoSuchOverload("@in")


def not_equals(a: Any, b: Any) -> bool:
    return not equals(a, b)


BINARY: Final = {
    "_==_": equals,
    "_!=_": not_equals,
    "_<_": less,
    "_<=_": less_equal,
    "_>_": greater,
    "_>=_": greater_equal,
    "_+_": add,
    "_-_": subtract,
    "_*_": multiply,
    "_/_": divide,
    "_%_": modulo,
    "@in": contained_in,
}
UNARY: Final = {"-_": negate, "!_": logical_not}
