"""Runtime cost, in the units of cel-go's cost tracker, and the limit that cancels evaluation.

The rules follow cel-go's `interpreter/runtimecost.go`: an identifier or a field selection costs
1, a list literal 10, a map literal 30, a call 1 unless it walks strings or lists (then a tenth of a
unit per element, rounded up; `matches` is the product of the string's and the pattern's factors).
Kubernetes' libraries replace a call's cost with their own (k8s.io/apiserver pkg/cel/library
cost.go): string parsing and string functions by length, list functions by a traversal of the
list, an authorization check a flat 350,000. Comprehensions pay what cel-go's macro expansion
evaluates (see `macros`). Passing the limit raises upstream's error.
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
AUTHZ_CHECK: Final = 350_000
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


def scaled(units: int, factor: float) -> int:
    return math.ceil(units * factor)


# A call's cost from its operands' sizes and whether the first operand is a string or bytes; the
# runtime passes actual sizes, the static estimator the largest sizes the schema allows.
CostModel = Callable[[Sequence[int], bool], int]


def _traverse_first(sizes: Sequence[int], text: bool) -> int:
    return scaled(sizes[0], STRING_TRAVERSAL) if text else 1


def _traverse_second(sizes: Sequence[int], text: bool) -> int:
    return scaled(sizes[1], STRING_TRAVERSAL)


def _shorter(sizes: Sequence[int], text: bool) -> int:
    return scaled(min(sizes[0], sizes[1]), STRING_TRAVERSAL)


def _text_shorter(sizes: Sequence[int], text: bool) -> int:
    return _shorter(sizes, text) if text else 1


def _both(sizes: Sequence[int], text: bool) -> int:
    return scaled(sizes[0] + sizes[1], STRING_TRAVERSAL) if text else 1


def _membership(sizes: Sequence[int], text: bool) -> int:
    return sizes[1]


def _regex(sizes: Sequence[int], text: bool) -> int:
    return scaled(1 + sizes[0], STRING_TRAVERSAL) * scaled(sizes[1], REGEX_LENGTH)


def _contains(sizes: Sequence[int], text: bool) -> int:
    return scaled(sizes[0], STRING_TRAVERSAL) * scaled(sizes[1], STRING_TRAVERSAL) if text else 1


def _first_twice(sizes: Sequence[int], text: bool) -> int:
    return scaled(sizes[0], 2 * STRING_TRAVERSAL)


def _set_pairs(sizes: Sequence[int], text: bool) -> int:
    return 1 + sizes[0] * sizes[1]


def _set_equivalence(sizes: Sequence[int], text: bool) -> int:
    return 1 + 2 * sizes[0] * sizes[1]


def _contains_ip(sizes: Sequence[int], text: bool) -> int:
    # The CIDR object has no size (1); a string argument is parsed too.
    return scaled(2 * sizes[0], STRING_TRAVERSAL) + (scaled(sizes[1], STRING_TRAVERSAL) if text else 0)


def _contains_cidr(sizes: Sequence[int], text: bool) -> int:
    return _contains_ip(sizes, text) + scaled(sizes[0], STRING_TRAVERSAL) + 1


def _authz_check(sizes: Sequence[int], text: bool) -> int:
    return AUTHZ_CHECK


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
    **dict.fromkeys(
        (
            "url",
            "lowerAscii",
            "upperAscii",
            "substring",
            "trim",
            "cidr",
            "isIP",
            "isCIDR",
            "ip",
            "quantity",
            "isQuantity",
            "semver",
            "isSemver",
            "jsonpatch.escapeKey",
        ),
        _traverse_first,
    ),
    "replace": _first_twice,
    "split": _first_twice,
    "ip.isCanonical": _first_twice,
    "sets.contains": _set_pairs,
    "sets.intersects": _set_pairs,
    "sets.equivalent": _set_equivalence,
    "check": _authz_check,
    "containsIP": _contains_ip,
    "containsCIDR": _contains_cidr,
}
# Calls whose models read the text flag from the second operand (a CIDR's string argument).
SECOND_OPERAND_TEXT: Final = frozenset(("containsIP", "containsCIDR"))


def traversal(value: Any) -> int:
    """Kubernetes' cost of walking a value: a tenth of a unit per character (rounded down), the
    sum over list elements and map entries, 1 for anything else."""
    kind = type(value)
    if kind is str or kind is bytes:
        return int(len(value) * STRING_TRAVERSAL)
    if kind in LISTS:
        return sum(traversal(item) for item in value)
    if kind is dict:
        return sum(traversal(k) + traversal(v) for k, v in value.items())
    return 1


# Calls whose cost depends on the values themselves (or on the result), not only on sizes.
VALUE_COSTS: Final[dict[str, Callable[[Sequence[Any], Any], int]]] = {
    **dict.fromkeys(
        ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"), lambda args, result: traversal(args[0])
    ),
    "join": lambda args, result: scaled(size(result), 2 * STRING_TRAVERSAL),
}


def call_cost(name: str, args: Sequence[Any]) -> int:
    """The runtime cost of calling `name` on these argument values."""
    model = CALL_COSTS.get(name)
    if model is None or not args:
        return 1
    text_at = 1 if name in SECOND_OPERAND_TEXT and len(args) > 1 else 0
    return model([size(a) for a in args], type(args[text_at]) in (str, bytes))
