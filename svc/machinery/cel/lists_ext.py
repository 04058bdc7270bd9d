"""The encoders, sets and lists extensions (cel-go `ext.Encoders`, `ext.Sets`, `ext.Lists`)."""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.operators import compare, contained_in, equals
from svc.machinery.cel.values import LISTS, CelError, NoSuchOverload


def base64_encode(value: Any) -> str:
    if type(value) is not bytes:
        raise NoSuchOverload("base64.encode")
    return base64.b64encode(value).decode()


def base64_decode(value: Any) -> bytes:
    if type(value) is not str:
        raise NoSuchOverload("base64.decode")
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except binascii.Error as err:
        raise CelError(f"illegal base64 data: {err}") from err


def _lists(name: str, *values: Any) -> None:
    if any(type(v) not in LISTS for v in values):
        raise NoSuchOverload(name)


def sets_contains(items: Any, other: Any) -> bool:
    _lists("sets.contains", items, other)
    return all(contained_in(x, items) for x in other)


def sets_equivalent(items: Any, other: Any) -> bool:
    return sets_contains(items, other) and sets_contains(other, items)


def sets_intersects(items: Any, other: Any) -> bool:
    _lists("sets.intersects", items, other)
    return any(contained_in(x, items) for x in other)


# -- lists extension ---------------------------------------------------------------------------


def lists_range(count: Any) -> list[int]:
    if type(count) is not int:
        raise NoSuchOverload("lists.range")
    return list(range(count))


def lists_slice(items: Any, start: Any, end: Any) -> list[Any]:
    _lists("slice", items)
    if start < 0 or end < 0:
        raise CelError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CelError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if end > len(items):
        raise CelError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return list(items[start:end])


def flatten(items: Any, depth: Any = 1) -> list[Any]:
    _lists("flatten", items)
    if depth < 0:
        raise CelError("level must be non-negative")
    out: list[Any] = []
    for item in items:
        if type(item) in LISTS and depth > 0:
            out.extend(flatten(item, depth - 1))
        else:
            out.append(item)
    return out


def distinct(items: Any) -> list[Any]:
    _lists("distinct", items)
    out: list[Any] = []
    for item in items:
        if not any(equals(item, seen) for seen in out):
            out.append(item)
    return out


def sort(items: Any) -> list[Any]:
    _lists("sort", items)
    return sorted(items, key=functools.cmp_to_key(compare))


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "base64.encode": base64_encode,
    "base64.decode": base64_decode,
    "sets.contains": sets_contains,
    "sets.equivalent": sets_equivalent,
    "sets.intersects": sets_intersects,
    "lists.range": lists_range,
    "slice": lists_slice,
    "flatten": flatten,
    "distinct": distinct,
    "sort": sort,
}
