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

from svc.machinery.cel.values import LISTS, CelError, Optional

COST_EXCEEDED: Final = "operation cancelled: actual cost limit exceeded"
SELECT_AND_IDENT: Final = 1
LIST_CREATE: Final = 10
MAP_CREATE: Final = 30
STRUCT_CREATE: Final = 40
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
    if type(value) in (str, bytes, dict, *LISTS):
        return len(value)
    if type(value) is Optional and value.has_value():
        return size(value.value)
    return 1


def _scaled(units: int, factor: float) -> int:
    return math.ceil(units * factor)


# A call's cost from its operands' sizes and whether the first operand is a string or bytes; the
# runtime passes actual sizes, the static estimator the largest sizes the schema allows.
CostModel = Callable[[Sequence[int], bool], int]


def _traverse_first(sizes: Sequence[int], text: bool) -> int:
    return _scaled(sizes[0], STRING_TRAVERSAL) if text else 1


def _traverse_second(sizes: Sequence[int], text: bool) -> int:
    return _scaled(sizes[1], STRING_TRAVERSAL)


def _shorter(sizes: Sequence[int], text: bool) -> int:
    return _scaled(min(sizes[0], sizes[1]), STRING_TRAVERSAL)


def _text_shorter(sizes: Sequence[int], text: bool) -> int:
    return _shorter(sizes, text) if text else 1


def _both(sizes: Sequence[int], text: bool) -> int:
    return _scaled(sizes[0] + sizes[1], STRING_TRAVERSAL) if text else 1


def _membership(sizes: Sequence[int], text: bool) -> int:
    return sizes[1]


def _regex(sizes: Sequence[int], text: bool) -> int:
    return _scaled(1 + sizes[0], STRING_TRAVERSAL) * _scaled(sizes[1], REGEX_LENGTH)


def _contains(sizes: Sequence[int], text: bool) -> int:
    return _scaled(sizes[0], STRING_TRAVERSAL) * _scaled(sizes[1], STRING_TRAVERSAL) if text else 1


CALL_COSTS: Final[dict[str, CostModel]] = {
    "startsWith": _traverse_second,
    "endsWith": _traverse_second,
    "bytes": _traverse_first,
    "string": _traverse_first,
    "strings.quote": _traverse_first,
    "format": _traverse_first,
    "@in": _membership,
    "_<_": _text_shorter,
    "_<=_": _text_shorter,
    "_>_": _text_shorter,
    "_>=_": _text_shorter,
    "_==_": _shorter,
    "_!=_": _shorter,
    "_+_": _both,
    "matches": _regex,
    "find": _regex,
    "findAll": _regex,
    "contains": _contains,
}


def call_cost(name: str, args: Sequence[Any]) -> int:
    """The runtime cost of calling `name` on these argument values."""
    model = CALL_COSTS.get(name)
    if model is None:
        return 1
    return model([size(a) for a in args], type(args[0]) in (str, bytes))
