"""Runtime cost, in the units of cel-go's cost tracker, and the limit that cancels evaluation.

The rules follow cel-go's `interpreter/runtimecost.go`: an identifier or a field selection costs
1, a list literal 10, a map literal 30, a call 1 unless it walks strings or lists (then a tenth of a
unit per element, rounded up; `matches` is the product of the string's and the pattern's factors).
Comprehensions pay for what their bodies evaluate plus the accumulator step of cel-go's macro
expansion, approximated as `ITERATION` per element. Passing the limit raises upstream's error.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final

from svc.machinery.cel.values import CelError, Optional

COST_EXCEEDED: Final = "operation cancelled: actual cost limit exceeded"
SELECT_AND_IDENT: Final = 1
LIST_CREATE: Final = 10
MAP_CREATE: Final = 30
ITERATION: Final = 2
STRING_TRAVERSAL: Final = 0.1
REGEX_LENGTH: Final = 0.25


class CostExceeded(CelError):
    def __init__(self) -> None:
        super().__init__(COST_EXCEEDED)


class Cost:
    """Units spent by one evaluation against its limit (None: unlimited)."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int | None) -> None:
        self.used = 0
        self.limit = limit if limit is not None else 1 << 62

    def charge(self, units: int) -> None:
        self.used += units
        if self.used > self.limit:
            raise CostExceeded()


def size(value: Any) -> int:
    """cel-go's `actualSize`: the length of sized values, 1 for everything else."""
    if type(value) in (str, bytes, list, tuple, dict):
        return len(value)
    if type(value) is Optional and value.has_value():
        return size(value.value)
    return 1


def _scaled(units: int, factor: float) -> int:
    return math.ceil(units * factor)


def _traverse_first(args: Sequence[Any]) -> int:
    return _scaled(size(args[0]), STRING_TRAVERSAL)


def _traverse_second(args: Sequence[Any]) -> int:
    return _scaled(size(args[1]), STRING_TRAVERSAL)


def _shorter(args: Sequence[Any]) -> int:
    return _scaled(min(size(args[0]), size(args[1])), STRING_TRAVERSAL)


def _both(args: Sequence[Any]) -> int:
    if type(args[0]) in (str, bytes):
        return _scaled(size(args[0]) + size(args[1]), STRING_TRAVERSAL)
    return 1


def _membership(args: Sequence[Any]) -> int:
    return size(args[1]) if type(args[1]) in (list, tuple) else 1


def _regex(args: Sequence[Any]) -> int:
    return _scaled(1 + size(args[0]), STRING_TRAVERSAL) * _scaled(size(args[1]), REGEX_LENGTH)


def _contains(args: Sequence[Any]) -> int:
    return _scaled(size(args[0]), STRING_TRAVERSAL) * _scaled(size(args[1]), STRING_TRAVERSAL)


def _strings_only(model: Callable[[Sequence[Any]], int]) -> Callable[[Sequence[Any]], int]:
    def cost(args: Sequence[Any]) -> int:
        return model(args) if type(args[0]) in (str, bytes) else 1

    return cost


CALL_COSTS: Final[dict[str, Callable[[Sequence[Any]], int]]] = {
    "startsWith": _traverse_second,
    "endsWith": _traverse_second,
    "bytes": _strings_only(_traverse_first),
    "string": _strings_only(_traverse_first),
    "strings.quote": _traverse_first,
    "format": _traverse_first,
    "@in": _membership,
    "_<_": _strings_only(_shorter),
    "_<=_": _strings_only(_shorter),
    "_>_": _strings_only(_shorter),
    "_>=_": _strings_only(_shorter),
    "_==_": _shorter,
    "_!=_": _shorter,
    "_+_": _both,
    "matches": _regex,
    "find": _regex,
    "findAll": _regex,
    "contains": _strings_only(_contains),
}
