"""Static cost estimation: the most a checked expression can cost, before any object exists.

Upstream refuses, when a CRD is written, a rule whose estimated cost passes the static limit
(and a schema whose rules together pass the CRD limit), because runtime limits would otherwise
cancel the rule on large objects. The estimate walks the checked AST with the runtime's cost model
(`cost`), sizing each value by its schema (maxLength, maxItems, maxProperties) or, unbounded, by
the most a request body can hold.
"""

from __future__ import annotations

from typing import Final

from svc.machinery.cel import types
from svc.machinery.cel.checker import Checked
from svc.machinery.cel.cost import CALL_COSTS, ITERATION, LIST_CREATE, MAP_CREATE, SELECT_AND_IDENT
from svc.machinery.cel.parser import Node
from svc.machinery.cel.types import Type
from svc.machinery.cel.values import CelError

MAX_REQUEST_SIZE_BYTES: Final = 3 * 1024 * 1024
PER_CALL_LIMIT: Final = 1_000_000
STATIC_ESTIMATED_COST_LIMIT: Final = 10_000_000
STATIC_ESTIMATED_CRD_COST_LIMIT: Final = 100_000_000
_LOOPS: Final = frozenset(
    ("all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap")
)


def _min_serialized(t: Type) -> int:
    """The fewest JSON bytes a value of `t` takes ('""', '[]', '{}', '0', 'true')."""
    if t.kind in ("string", "bytes", "list", "map") or types.is_object(t):
        return 2
    if t == types.BOOL:
        return 4
    return 1


def max_size(t: Type) -> int:
    """The largest size (characters, items, entries) a value of `t` can have."""
    if t.max_size is not None:
        return t.max_size
    budget = MAX_REQUEST_SIZE_BYTES - 2
    if t.kind in ("string", "bytes"):
        return budget
    if t.kind == "list":
        return budget // (_min_serialized(t.params[0]) + 1)
    if t.kind == "map":
        return budget // (_min_serialized(t.params[1]) + 4)
    if t == types.DYN:
        return budget
    return 1


class _Estimator:
    def __init__(self, checked: Checked) -> None:
        self.types = checked.types

    def type_of(self, node: Node) -> Type:
        return self.types.get(id(node), types.DYN)

    def cost(self, node: Node) -> int:
        kind = node[0]
        if kind == "lit":
            return 0
        if kind == "ident":
            return SELECT_AND_IDENT
        if kind == "select":
            return self.cost(node[1]) + SELECT_AND_IDENT
        if kind == "index":
            return self.cost(node[1]) + self.cost(node[2]) + 1
        if kind in ("and", "or"):
            return self.cost(node[1]) + self.cost(node[2])
        if kind == "cond":
            return self.cost(node[1]) + max(self.cost(node[2]), self.cost(node[3]))
        if kind == "list":
            return LIST_CREATE + sum(self.cost(item) for item, _ in node[1])
        if kind == "map":
            return MAP_CREATE + sum(self.cost(k) + self.cost(v) for k, v, _ in node[1])
        return self.call(node)

    def call(self, node: Node) -> int:
        _, name, target, args = node
        if name == "has" and target is None:
            return self.cost(args[0][1]) + SELECT_AND_IDENT
        if name in _LOOPS and target is not None:
            variables = 2 if name in ("transformList", "transformMap") else 1
            if name in ("all", "exists", "exists_one", "existsOne") and len(args) == 3:
                variables = 2
            bodies = sum(self.cost(a) for a in args[variables:])
            return self.cost(target) + max_size(self.type_of(target)) * (bodies + ITERATION)
        operands = [target, *args] if target is not None else list(args)
        total = sum(self.cost(o) for o in operands)
        model = CALL_COSTS.get(name)
        if model is None or not operands:
            return total + 1
        text = self.type_of(operands[0]).kind in ("string", "bytes")
        return total + model([self.size(o) for o in operands] + [1], text)

    def size(self, node: Node) -> int:
        """A literal's own size, otherwise the largest its type allows."""
        if node[0] == "lit" and type(node[1]) in (str, bytes):
            return len(node[1])
        if node[0] in ("list", "map"):
            return len(node[1])
        return max_size(self.type_of(node))


def estimate(checked: Checked) -> int:
    """The most this expression can cost at runtime, in cel-go's units."""
    return _Estimator(checked).cost(checked.parsed.root)


def cost_error_message(cost_name: str, cost: int, limit: int) -> str:
    """Upstream's message for an estimate over its limit."""
    factor = cost / limit
    if factor > 100.0:
        shown = "more than 100x"
    elif factor < 1.5:
        shown = f"{factor:f}x"
    else:
        shown = f"{factor:.1f}x"
    return (
        f"{cost_name} exceeds budget by factor of {shown} (try simplifying the rule, or adding maxItems, "
        "maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )


class CostEstimateError(CelError):
    """An expression whose estimated cost is over its limit; the message is upstream's."""


def check_estimated_cost(
    checked: Checked, *, cost_name: str = "estimated rule cost", limit: int = STATIC_ESTIMATED_COST_LIMIT
) -> int:
    """The estimate, or `CostEstimateError` when it passes `limit` (a CRD rule's static limit)."""
    cost = estimate(checked)
    if cost > limit:
        raise CostEstimateError(cost_error_message(cost_name, cost, limit))
    return cost
