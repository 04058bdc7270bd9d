"""Static cost estimation: the most a checked expression can cost, before any object exists.

Upstream refuses, when a CRD is written, a rule whose estimated cost passes the static limit
(and a schema whose rules together pass the CRD limit), because runtime limits would otherwise
cancel the rule on large objects. The estimate walks the checked AST with the runtime's cost model
(`cost`), sizing each value by its schema (maxLength, maxItems, maxProperties) or, unbounded, by
the most a request body can hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from svc.machinery.cel import types
from svc.machinery.cel.checker import Checked
from svc.machinery.cel.cost import (
    CALL_COSTS,
    LIST_CREATE,
    MAP_CREATE,
    SECOND_OPERAND_TEXT,
    SELECT_AND_IDENT,
    STRING_TRAVERSAL,
    VALUE_COSTS,
    CostModel,
    scaled,
)
from svc.machinery.cel.parser import Node
from svc.machinery.cel.types import Type
from svc.machinery.cel.values import CelError

MAX_REQUEST_SIZE_BYTES: Final = 3 * 1024 * 1024
# The JSON bytes of a map entry besides its value, as Kubernetes counts them ('"k":' and a comma).
MAP_ENTRY_OVERHEAD: Final = 6
PER_CALL_LIMIT: Final = 1_000_000
STATIC_ESTIMATED_COST_LIMIT: Final = 10_000_000
STATIC_ESTIMATED_CRD_COST_LIMIT: Final = 100_000_000
_LOOPS: Final = frozenset(
    ("all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap")
)


def _min_serialized(t: Type) -> int:
    """The fewest JSON bytes a value of `t` takes ('""', '[]', '{}', '0', 'true')."""
    if t.json_min is not None:
        return t.json_min
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
        return budget // (_min_serialized(t.params[1]) + MAP_ENTRY_OVERHEAD)
    if t == types.DYN:
        return budget
    return 1


def _ip_bytes(sizes: Sequence[int], text: bool) -> int:
    """Comparing two addresses of at most 16 bytes, plus parsing a string argument."""
    return scaled(16 + 16, STRING_TRAVERSAL) + (scaled(sizes[1], STRING_TRAVERSAL) if text else 0)


def _cidr_bytes(sizes: Sequence[int], text: bool) -> int:
    return _ip_bytes(sizes, text) + scaled(16, STRING_TRAVERSAL) + 1


# Where Kubernetes estimates a call differently from what it charges at runtime.
ESTIMATED_COSTS: Final[dict[str, CostModel]] = {"containsIP": _ip_bytes, "containsCIDR": _cidr_bytes}


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
        if target is not None and target[0] == "ident" and id(target) not in self.types:
            name, target = f"{target[1].lstrip('.')}.{name}", None  # a namespaced function (ip.isCanonical)
        if name == "has" and target is None:
            return self.cost(args[0][1])  # Kubernetes prices presence tests at 0
        if name in _LOOPS and target is not None:
            return self.loop(name, target, args)
        operands = [target, *args] if target is not None else list(args)
        total = sum(self.cost(o) for o in operands)
        if name in VALUE_COSTS and target is not None:
            return total + self.value_cost(name, target, args)
        model = ESTIMATED_COSTS.get(name) or CALL_COSTS.get(name)
        if model is None or not operands:
            return total + 1
        text_at = 1 if name in SECOND_OPERAND_TEXT and len(operands) > 1 else 0
        text = self.type_of(operands[text_at]).kind in ("string", "bytes")
        return total + model([self.size(o) for o in operands] + [1], text)

    def loop(self, name: str, target: Node, args: list[Node]) -> int:
        """cel-go's estimate of a comprehension: the range, the accumulator's initial value, and per
        element the loop condition and step of the macro's expansion, then the result."""
        variables = 2 if name in ("transformList", "transformMap") else 1
        if name in ("all", "exists", "exists_one", "existsOne") and len(args) == 3:
            variables = 2
        bodies = [self.cost(a) for a in args[variables:]]
        count = self.size(target)
        base = self.cost(target)
        if name == "all":
            return base + count * (3 + bodies[0]) + 1
        if name == "exists":
            return base + count * (4 + bodies[0]) + 1
        if name in ("exists_one", "existsOne"):
            return base + count * (bodies[0] + 2) + 2
        if name == "transformMap":
            return base + MAP_CREATE + count * (3 + sum(bodies)) + 1
        append = 1 + LIST_CREATE + scaled(count, STRING_TRAVERSAL)
        if name == "filter":
            return base + LIST_CREATE + count * (bodies[0] + append + SELECT_AND_IDENT) + 1
        return base + LIST_CREATE + count * (sum(bodies) + append) + 1

    def value_cost(self, name: str, target: Node, args: list[Node]) -> int:
        """Kubernetes' estimates for the list functions and `join` (library cost.go)."""
        target_type = self.type_of(target)
        count = self.size(target)
        if target_type.kind != "list":
            return scaled(count, STRING_TRAVERSAL)
        element = target_type.params[0]
        element_size = max_size(element)
        if name == "join":
            separator = self.size(args[0]) if args else 0
            return scaled(count * element_size + separator * max(count - 1, 0), STRING_TRAVERSAL)
        per_element = 1 + (scaled(element_size, STRING_TRAVERSAL) if element.kind in ("string", "bytes") else 0)
        return count * per_element

    def size(self, node: Node) -> int:
        """A literal's own size, otherwise the largest its type allows. A map value reached by field
        selection has no schema path upstream, so only its type sizes it (a number 1, not 0)."""
        if node[0] == "lit" and type(node[1]) in (str, bytes):
            return len(node[1])
        if node[0] in ("list", "map"):
            return len(node[1])
        found = self.type_of(node)
        if node[0] == "select" and found.max_size == 0 and self.type_of(node[1]).kind == "map":
            return 1
        return max_size(found)


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
