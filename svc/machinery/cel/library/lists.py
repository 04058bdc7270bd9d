"""The `lists` library: `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`, `includes`.

`indexOf`/`lastIndexOf` on lists live with their string overloads in `stdlib`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.operators import add, compare, equals
from svc.machinery.cel.values import LISTS, CelError, NoSuchOverload


def _list(name: str, value: Any) -> Any:
    if type(value) not in LISTS:
        raise NoSuchOverload(name)
    return value


def is_sorted(items: Any) -> bool:
    items = _list("isSorted", items)
    return all(compare(a, b) <= 0 for a, b in itertools.pairwise(items))


def total(items: Any) -> Any:
    items = _list("sum", items)
    if not items:
        return 0
    result = items[0]
    for item in items[1:]:
        result = add(result, item)
    return result


def _extreme(name: str, prefer: int) -> Callable[[Any], Any]:
    def pick(items: Any) -> Any:
        items = _list(name, items)
        if not items:
            raise CelError(f"{name} called on empty list")
        best = items[0]
        for item in items[1:]:
            if compare(best, item) == prefer:
                best = item
        return best

    return pick


def includes(target: Any, item: Any) -> bool:
    if type(target) in LISTS:
        return any(equals(x, item) for x in target)
    return equals(target, item)


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "isSorted": is_sorted,
    "sum": total,
    "min": _extreme("min", 1),
    "max": _extreme("max", -1),
    "includes": includes,
}
