"""CEL's macros compiled to closures: `has`, the comprehensions (`all`, `exists`, `exists_one`,
`map`, `filter`, the two-variable `transformList`/`transformMap`), `optMap`/`optFlatMap` and
`cel.bind`.

Loop variables are bound in the activation dict and restored afterwards; every step charges the
cost budget. `all` and `exists` absorb an element's error when another element decides the result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

from svc.machinery.cel.access import COST, Closure
from svc.machinery.cel.cost import LIST_CREATE, MAP_CREATE, SELECT_AND_IDENT
from svc.machinery.cel.parser import Node
from svc.machinery.cel.values import (
    LISTS,
    NONE,
    CelError,
    CompileError,
    NoSuchOverload,
    Optional,
    map_items,
    map_key,
    map_keys,
)

if TYPE_CHECKING:
    from svc.machinery.cel.compiler import Compiler


def _variable(node: Node, macro: str) -> str:
    if node[0] != "ident":
        raise CompileError(f"{macro}() variable name must be a simple identifier")
    return node[1]


def _has(compiler: Compiler, target: Node | None, args: list[Node]) -> Closure:
    if len(args) != 1 or args[0][0] != "select" or args[0][3]:
        raise CompileError("invalid argument to has() macro")
    _, operand, field, _ = args[0]
    value_of = compiler.compile(operand)

    def present(act: dict[str, Any]) -> bool:
        value = value_of(act)
        if type(value) is Optional:
            if not value.has_value():
                return False
            value = value.value
        if type(value) is dict:
            return field in value
        test = getattr(value, "cel_has", None)
        if test is not None:
            return test(field)
        raise NoSuchOverload("has")

    return present


def _range(value: Any) -> list[Any]:
    if type(value) in LISTS:
        return value
    if type(value) is dict:
        return map_keys(value)
    raise NoSuchOverload("comprehension range")


def _comprehension(kind: str) -> Callable[[Compiler, Node | None, list[Node]], Closure]:
    def build(compiler: Compiler, target: Node | None, args: list[Node]) -> Closure:
        expected = _ARITY.get(kind, (2, 3))
        if len(args) not in expected:
            raise CompileError(f"{kind}() macro takes {expected[0]} arguments")
        two_vars = kind in _TWO_VARS or (kind not in ("map", "filter") and len(args) == 3)
        names = [_variable(a, kind) for a in args[: 2 if two_vars else 1]]
        range_of = compiler.compile(target)
        for name in names:
            compiler.bind_local(name)
        try:
            steps = [compiler.compile(a) for a in args[len(names) :]]
        finally:
            for _ in names:
                compiler.unbind_local()
        return _LOOPS[kind](range_of, names, steps)

    return build


def _iterate(act: dict[str, Any], value: Any, names: list[str], step: int = 0) -> Iterable[int]:
    """Bind the loop variables to each element in turn (yielding how many remain after it) and
    charge `step` units per element: the loop condition's cost in cel-go's macro expansion."""
    saved = [act.get(n, _UNSET) for n in names]
    cost = act[COST]
    try:
        if len(names) == 1:
            name = names[0]
            items = _range(value)
            left = len(items)
            for item in items:
                cost.charge(step)
                act[name] = item
                left -= 1
                yield left
        else:
            pairs = map_items(value) if type(value) is dict else enumerate(_range(value))
            left = len(value)
            for key, item in pairs:
                cost.charge(step)
                act[names[0]], act[names[1]] = key, item
                left -= 1
                yield left
    finally:
        for name, old in zip(names, saved, strict=True):
            if old is _UNSET:
                act.pop(name, None)
            else:
                act[name] = old


_UNSET: Final = object()


def _quantifier(decisive: bool, operator: str) -> Callable[[Closure, list[str], list[Closure]], Closure]:
    """`all` (decided by a false) and `exists` (decided by a true): errors of other elements matter only
    when no element decides, as cel-go's short-circuiting logic has it. Costs follow cel-go's
    expansion: each element pays the loop condition (`all` 2, `exists` 3) and the accumulator read
    (1); a decision pays one more condition when elements remain; the result read costs 1."""
    condition = 3 if decisive else 2

    def build(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
        (test,) = steps

        def run(act: dict[str, Any]) -> bool:
            error = None
            cost = act[COST]
            for left in _iterate(act, range_of(act), names, condition + 1):
                try:
                    result = test(act)
                except CelError as err:
                    error = error or err
                    continue
                if result is decisive:
                    cost.charge((condition if left else 0) + 1)
                    return decisive
                if result is not (not decisive):
                    error = error or NoSuchOverload(operator)
            cost.charge(1)
            if error is not None:
                raise error
            return not decisive

        return run

    return build


_all = _quantifier(False, "_&&_")
_exists = _quantifier(True, "_||_")


def _exists_one(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    """Costs: each element pays the accumulator step (2 when it counts, 1 otherwise); the result
    comparison costs 2."""
    (test,) = steps

    def run(act: dict[str, Any]) -> bool:
        count = 0
        cost = act[COST]
        for _ in _iterate(act, range_of(act), names):
            result = test(act)
            if type(result) is not bool:
                raise NoSuchOverload("exists_one")
            count += result
            cost.charge(2 if result else 1)
        cost.charge(2)
        return count == 1

    return run


def _append_cost(length: int) -> int:
    """A kept element costs the accumulator read, a one-element list literal and the list
    concatenation (a tenth of a unit per element of the result, rounded up)."""
    return 1 + LIST_CREATE + -(-(length + 1) // 10)


def _collect(range_of: Closure, names: list[str], keep: Closure | None, produce: Closure, produced: int) -> Closure:
    """`map`, `filter` and `transformList`: a list built element by element. `produced` is the cost
    of reading the produced value when it is not a compiled expression (`filter`'s variable)."""

    def run(act: dict[str, Any]) -> list[Any]:
        cost = act[COST]
        cost.charge(LIST_CREATE)
        out: list[Any] = []
        for _ in _iterate(act, range_of(act), names):
            if keep is not None and not _truth(keep(act)):
                cost.charge(1)
                continue
            value = produce(act)
            cost.charge(_append_cost(len(out)) + produced)
            out.append(value)
        cost.charge(1)
        return out

    return run


def _map_loop(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    keep, transform = (steps[0], steps[1]) if len(steps) == 2 else (None, steps[0])
    return _collect(range_of, names, keep, transform, 0)


def _filter_loop(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    (keep,) = steps
    name = names[0]
    return _collect(range_of, names, keep, lambda act: act[name], SELECT_AND_IDENT)


def _truth(value: Any) -> bool:
    if type(value) is not bool:
        raise NoSuchOverload("filter")
    return value


_transform_list = _map_loop


def _transform_map(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    """Costs: the empty map literal, per kept entry the accumulator, key and insert (3), per
    skipped entry the accumulator (1), and the result read (1)."""
    keep, transform = (steps[0], steps[1]) if len(steps) == 2 else (None, steps[0])

    def run(act: dict[str, Any]) -> dict[Any, Any]:
        cost = act[COST]
        cost.charge(MAP_CREATE)
        out = {}
        for _ in _iterate(act, range_of(act), names):
            if keep is None or _truth(keep(act)):
                out[map_key(act[names[0]])] = transform(act)
                cost.charge(3)
            else:
                cost.charge(1)
        cost.charge(1)
        return out

    return run


def _optional_map(flat: bool) -> Callable[[Closure, list[str], list[Closure]], Closure]:
    def build(target: Closure, names: list[str], steps: list[Closure]) -> Closure:
        (transform,) = steps
        name = names[0]

        def run(act: dict[str, Any]) -> Optional:
            value = target(act)
            if type(value) is not Optional:
                raise NoSuchOverload("optMap")
            if not value.has_value():
                return NONE
            saved = act.get(name, _UNSET)
            act[name] = value.value
            try:
                result = transform(act)
            finally:
                if saved is _UNSET:
                    act.pop(name, None)
                else:
                    act[name] = saved
            if flat and type(result) is not Optional:
                raise NoSuchOverload("optFlatMap")
            return result if flat else Optional(result)

        return run

    return build


_ARITY: Final = {
    "map": (2, 3),
    "filter": (2,),
    "transformList": (3, 4),
    "transformMap": (3, 4),
    "optMap": (2,),
    "optFlatMap": (2,),
}
_TWO_VARS: Final = frozenset(("transformList", "transformMap"))

_LOOPS: Final = {
    "transformList": _transform_list,
    "transformMap": _transform_map,
    "optMap": _optional_map(flat=False),
    "optFlatMap": _optional_map(flat=True),
    "all": _all,
    "exists": _exists,
    "exists_one": _exists_one,
    "existsOne": _exists_one,
    "map": _map_loop,
    "filter": _filter_loop,
}


def _bind(compiler: Compiler, target: Node | None, args: list[Node]) -> Closure:
    if target != ("ident", "cel") or len(args) != 3:
        return compiler.function("bind", [compiler.compile(a) for a in ([target] if target else []) + args])
    name = _variable(args[0], "cel.bind")
    init = compiler.compile(args[1])
    compiler.bind_local(name)
    try:
        body = compiler.compile(args[2])
    finally:
        compiler.unbind_local()

    def run(act: dict[str, Any]) -> Any:
        saved = act.get(name, _UNSET)
        act[name] = init(act)
        try:
            return body(act)
        finally:
            if saved is _UNSET:
                act.pop(name, None)
            else:
                act[name] = saved

    return run


MACROS: Final[dict[str, Callable[[Compiler, Node | None, list[Node]], Closure]]] = {
    "has": _has,
    "bind": _bind,
    **{kind: _comprehension(kind) for kind in _LOOPS},
}
