"""Compile a parsed CEL expression into nested Python closures.

Each node becomes one closure `f(act)` over the activation dict, so evaluating a rule is a chain of
Python calls on the object's own dicts with nothing converted. Comprehension variables are bound in
the same dict and restored afterwards. Errors are exceptions; `&&`, `||`, `all` and `exists` absorb
an error when the other side decides the result, as CEL's commutative logic requires.

Runtime cost (see `cost`): closures add their units to the `Cost` kept under `COST` in the
activation. Identifiers and selections only add; calls and loop steps also check the limit, and
`Program` checks it once more at the end, so a long evaluation stops early and none passes over.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any, Final

from svc.machinery.cel.cost import CALL_COSTS, ITERATION, LIST_CREATE, MAP_CREATE, call_cost
from svc.machinery.cel.operators import BINARY, ORDERED, UNARY, lookup
from svc.machinery.cel.parser import Node, Parsed
from svc.machinery.cel.values import NONE, TYPE_IDENTIFIERS, CelError, NoSuchOverload, Optional, Uint

Closure = Callable[[dict[str, Any]], Any]
COST: Final = "\x00cost"
_SEQUENCES: Final = frozenset((str, bytes, list, tuple))
# Python's own operators give CEL's answers when both sides are of one kind in `ORDERED`.
_FAST_COMPARISONS: Final = {
    "_<_": operator.lt,
    "_<=_": operator.le,
    "_>_": operator.gt,
    "_>=_": operator.ge,
    "_==_": operator.eq,
    "_!=_": operator.ne,
}


class CompileError(CelError):
    """An expression that cannot run in this environment (undeclared names, bad macros)."""


class Compiler:
    """Turns AST nodes into closures for a fixed set of declared variables and functions."""

    def __init__(
        self,
        variables: Iterable[str],
        functions: dict[str, Callable[..., Any]],
        *,
        strict: bool = True,
        parsed: Parsed | None = None,
    ) -> None:
        self.strict = strict
        self.parsed = parsed
        self.current: Node | None = None
        self.variables = set(variables)
        self.functions = functions
        self.locals: list[str] = []

    def compile(self, node: Node) -> Closure:
        self.current = node
        return getattr(self, "_" + node[0])(*node[1:])

    # -- leaves --------------------------------------------------------------------------------

    def _lit(self, value: Any) -> Closure:
        return lambda act: value

    def _ident(self, name: str) -> Closure:
        name = name.lstrip(".")
        if name in self.locals or name in self.variables:

            def variable(act: dict[str, Any]) -> Any:
                act[COST].used += 1
                try:
                    return act[name]
                except KeyError:
                    raise CelError(f"no such attribute(s): {name}") from None

            return variable
        if name in TYPE_IDENTIFIERS:
            value = TYPE_IDENTIFIERS[name]
            return lambda act: value
        return self._undeclared(name, self.current)

    def _undeclared(self, name: str, node: Node | None) -> Closure:
        """A compile error, or (unchecked environments) an error when evaluation reaches it."""
        message = f"undeclared reference to '{name}' (in container '')"
        if self.strict:
            raise CompileError(self.parsed.issue(node, message) if self.parsed is not None else message)

        def missing(act: dict[str, Any]) -> Any:
            raise CelError(message)

        return missing

    def _qualified(self, node: Node) -> str | None:
        """`a.b.c` as one dotted name when it is a chain of plain selections on an identifier."""
        parts = []
        while node[0] == "select" and not node[3]:
            parts.append(node[2])
            node = node[1]
        if node[0] != "ident":
            return None
        parts.append(node[1].lstrip("."))
        return ".".join(reversed(parts))

    # -- selection and indexing ----------------------------------------------------------------

    def _select(self, operand: Node, field: str, optional: bool) -> Closure:
        name = self._qualified(("select", operand, field, optional))
        if name is not None and name.split(".")[0] not in self.locals:
            if name in self.variables:
                return lambda act: act[name]
            if name.split(".")[0] not in self.variables and name in TYPE_IDENTIFIERS:
                value = TYPE_IDENTIFIERS[name]
                return lambda act: value
        target = self.compile(operand)
        if optional:
            return lambda act: _select_optional(target(act), field)

        def general(act: dict[str, Any]) -> Any:
            value = target(act)
            act[COST].used += 1
            return _select(value, field)

        path = self._field_path(("select", operand, field, optional))
        return general if path is None else _path(path[0], path[1], general)

    def _field_path(self, node: Node) -> tuple[str, tuple[str, ...]] | None:
        """`self.spec.replicas` as (variable, fields) when it is plain selection on a variable."""
        fields = []
        while node[0] == "select" and not node[3]:
            fields.append(node[2])
            node = node[1]
        if node[0] != "ident" or not fields:
            return None
        name = node[1]
        if name not in self.locals and name not in self.variables:
            return None
        return name, tuple(reversed(fields))

    def _index(self, operand: Node, key: Node, optional: bool) -> Closure:
        target, index = self.compile(operand), self.compile(key)
        if optional:
            return lambda act: _index_optional(target(act), index(act))

        def item(act: dict[str, Any]) -> Any:
            container, key = target(act), index(act)
            act[COST].charge(1)
            return _index(container, key)

        return item

    # -- logic ---------------------------------------------------------------------------------

    def _and(self, left: Node, right: Node) -> Closure:
        lhs, rhs = self.compile(left), self.compile(right)

        def both(act: dict[str, Any]) -> Any:
            try:
                first = lhs(act)
            except CelError as err:
                if rhs(act) is False:
                    return False
                raise err from None
            if first is False:
                return False
            second = rhs(act)
            if first is True and type(second) is bool:
                return second
            if second is False:
                return False
            raise NoSuchOverload("_&&_")

        return both

    def _or(self, left: Node, right: Node) -> Closure:
        lhs, rhs = self.compile(left), self.compile(right)

        def either(act: dict[str, Any]) -> Any:
            try:
                first = lhs(act)
            except CelError as err:
                if rhs(act) is True:
                    return True
                raise err from None
            if first is True:
                return True
            second = rhs(act)
            if first is False and type(second) is bool:
                return second
            if second is True:
                return True
            raise NoSuchOverload("_||_")

        return either

    def _cond(self, test: Node, then: Node, other: Node) -> Closure:
        check, yes, no = self.compile(test), self.compile(then), self.compile(other)

        def choose(act: dict[str, Any]) -> Any:
            chosen = check(act)
            if chosen is True:
                return yes(act)
            if chosen is False:
                return no(act)
            raise NoSuchOverload("_?_:_")

        return choose

    # -- literals ------------------------------------------------------------------------------

    def _list(self, items: list[tuple[Node, bool]]) -> Closure:
        parts = [(self.compile(item), optional) for item, optional in items]
        if not any(optional for _, optional in parts):
            plain = [part for part, _ in parts]

            def literal(act: dict[str, Any]) -> list[Any]:
                act[COST].charge(LIST_CREATE)
                return [part(act) for part in plain]

            return literal

        def build(act: dict[str, Any]) -> list[Any]:
            act[COST].charge(LIST_CREATE)
            out = []
            for part, optional in parts:
                value = part(act)
                if optional:
                    if type(value) is not Optional:
                        raise NoSuchOverload("optional list element")
                    if not value.has_value():
                        continue
                    value = value.value
                out.append(value)
            return out

        return build

    def _map(self, entries: list[tuple[Node, Node, bool]]) -> Closure:
        parts = [(self.compile(k), self.compile(v), optional) for k, v, optional in entries]

        def build(act: dict[str, Any]) -> dict[Any, Any]:
            act[COST].charge(MAP_CREATE)
            out: dict[Any, Any] = {}
            for key_of, value_of, optional in parts:
                key = key_of(act)
                if type(key) not in (str, int, Uint, bool):
                    raise CelError(f"unsupported key type: {type(key).__name__}")
                if lookup(out, key)[0]:
                    raise CelError(f"Failed with repeated key: {key}")
                value = value_of(act)
                if optional:
                    if type(value) is not Optional:
                        raise NoSuchOverload("optional map entry")
                    if not value.has_value():
                        continue
                    value = value.value
                out[key] = value
            return out

        return build

    # -- calls and macros ----------------------------------------------------------------------

    def _call(self, name: str, target: Node | None, args: list[Node]) -> Closure:
        node = self.current
        macro = _MACROS.get(name)
        if macro is not None and (target is not None) == (name != "has"):
            return macro(self, target, args)
        if target is not None:
            qualified = self._qualified(target)
            if qualified is not None and qualified not in self.variables and f"{qualified}.{name}" in self.functions:
                return self._function(f"{qualified}.{name}", [self.compile(a) for a in args], node)
            if name == "or" and len(args) == 1:
                return _optional_or(self.compile(target), self.compile(args[0]))
            return self._function(name, [self.compile(target), *(self.compile(a) for a in args)], node)
        if name in BINARY:
            return self._binary(name, args)
        if name in UNARY:
            fn, operand = UNARY[name], self.compile(args[0])

            def unary(act: dict[str, Any]) -> Any:
                value = operand(act)
                act[COST].charge(1)
                return fn(value)

            return unary
        return self._function(name, [self.compile(a) for a in args], node)

    def _binary(self, name: str, args: list[Node]) -> Closure:
        fn = BINARY[name]
        lhs, rhs = self.compile(args[0]), self.compile(args[1])
        fast = _FAST_COMPARISONS.get(name)
        if fast is not None and args[1][0] == "lit" and type(args[1][1]) in ORDERED - _SEQUENCES:
            constant = args[1][1]
            kind = type(constant)

            def against_literal(act: dict[str, Any]) -> Any:
                a = lhs(act)
                act[COST].charge(1)
                return fast(a, constant) if type(a) is kind else fn(a, constant)

            return against_literal
        if fast is not None:

            def compare(act: dict[str, Any]) -> Any:
                a, b = lhs(act), rhs(act)
                kind = type(a)
                if kind is type(b) and kind in ORDERED:
                    act[COST].charge(1 if kind not in _SEQUENCES else call_cost(name, (a, b)))
                    return fast(a, b)
                act[COST].charge(call_cost(name, (a, b)))
                return fn(a, b)

            return compare

        def apply(act: dict[str, Any]) -> Any:
            a, b = lhs(act), rhs(act)
            act[COST].charge(call_cost(name, (a, b)))
            return fn(a, b)

        return apply

    def _function(self, name: str, args: list[Closure], node: Node | None = None) -> Closure:
        fn = self.functions.get(name)
        if fn is None:
            return self._undeclared(name, node)
        if name in CALL_COSTS:

            def sized(act: dict[str, Any]) -> Any:
                values = [arg(act) for arg in args]
                act[COST].charge(call_cost(name, values))
                return _apply(fn, name, values)

            return sized
        if len(args) == 1:
            (only,) = args

            def unary(act: dict[str, Any]) -> Any:
                value = only(act)
                act[COST].charge(1)
                return _apply(fn, name, (value,))

            return unary

        def call(act: dict[str, Any]) -> Any:
            values = [arg(act) for arg in args]
            act[COST].charge(1)
            return _apply(fn, name, values)

        return call

    def bind_local(self, name: str) -> None:
        self.locals.append(name)

    def unbind_local(self) -> None:
        self.locals.pop()


def _apply(fn: Callable[..., Any], name: str, values: Any) -> Any:
    try:
        return fn(*values)
    except TypeError as err:
        raise NoSuchOverload(name) from err


def _path(name: str, fields: tuple[str, ...], general: Closure) -> Closure:
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


def _select(value: Any, field: str) -> Any:
    tv = type(value)
    if tv is dict:
        if field in value:
            return value[field]
        raise CelError(f"no such key: {field}")
    if tv is Optional:
        return _select_optional(value, field)
    select = getattr(value, "cel_select", None)
    if select is not None:
        return select(field)
    raise CelError(f"type '{tv.__name__}' does not support field selection")


def _select_optional(value: Any, field: str) -> Optional:
    if type(value) is Optional:
        if not value.has_value():
            return NONE
        value = value.value
    if type(value) is dict:
        return Optional(value[field]) if field in value else NONE
    return Optional(_select(value, field))


def _index(container: Any, key: Any) -> Any:
    tc = type(container)
    if tc is list or tc is tuple:
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
        return _index_optional(container, key)
    raise NoSuchOverload("_[_]")


def _index_optional(container: Any, key: Any) -> Optional:
    if type(container) is Optional:
        if not container.has_value():
            return NONE
        container = container.value
    if type(container) in (list, tuple):
        if type(key) is int and not 0 <= key < len(container):
            return NONE
        return Optional(_index(container, key))
    if type(container) is dict:
        found, value = lookup(container, key)
        return Optional(value) if found else NONE
    raise NoSuchOverload("_[?_]")


def _optional_or(target: Closure, alternative: Closure) -> Closure:
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
    if type(value) in (list, tuple):
        return value
    if type(value) is dict:
        return list(value)
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


def _iterate(act: dict[str, Any], value: Any, names: list[str]) -> Iterable[None]:
    saved = [act.get(n, _UNSET) for n in names]
    cost = act[COST]
    try:
        if len(names) == 1:
            name = names[0]
            for item in _range(value):
                cost.charge(ITERATION)
                act[name] = item
                yield None
        else:
            pairs = value.items() if type(value) is dict else enumerate(_range(value))
            for key, item in pairs:
                cost.charge(ITERATION)
                act[names[0]], act[names[1]] = key, item
                yield None
    finally:
        for name, old in zip(names, saved, strict=True):
            if old is _UNSET:
                act.pop(name, None)
            else:
                act[name] = old


_UNSET: Final = object()


def _all(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    (test,) = steps

    def run(act: dict[str, Any]) -> bool:
        error = None
        for _ in _iterate(act, range_of(act), names):
            try:
                result = test(act)
            except CelError as err:
                error = error or err
                continue
            if result is False:
                return False
            if result is not True:
                error = error or NoSuchOverload("_&&_")
        if error is not None:
            raise error
        return True

    return run


def _exists(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    (test,) = steps

    def run(act: dict[str, Any]) -> bool:
        error = None
        for _ in _iterate(act, range_of(act), names):
            try:
                result = test(act)
            except CelError as err:
                error = error or err
                continue
            if result is True:
                return True
            if result is not False:
                error = error or NoSuchOverload("_||_")
        if error is not None:
            raise error
        return False

    return run


def _exists_one(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    (test,) = steps

    def run(act: dict[str, Any]) -> bool:
        count = 0
        for _ in _iterate(act, range_of(act), names):
            result = test(act)
            if type(result) is not bool:
                raise NoSuchOverload("exists_one")
            count += result
        return count == 1

    return run


def _map_loop(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    if len(steps) == 2:
        keep, transform = steps
        return lambda act: [transform(act) for _ in _iterate(act, range_of(act), names) if _truth(keep(act))]
    (transform,) = steps
    return lambda act: [transform(act) for _ in _iterate(act, range_of(act), names)]


def _filter_loop(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    (keep,) = steps
    name = names[0]
    return lambda act: [act[name] for _ in _iterate(act, range_of(act), names) if _truth(keep(act))]


def _truth(value: Any) -> bool:
    if type(value) is not bool:
        raise NoSuchOverload("filter")
    return value


def _transform_list(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    keep, transform = (steps[0], steps[1]) if len(steps) == 2 else (None, steps[0])

    def run(act: dict[str, Any]) -> list[Any]:
        return [transform(act) for _ in _iterate(act, range_of(act), names) if keep is None or _truth(keep(act))]

    return run


def _transform_map(range_of: Closure, names: list[str], steps: list[Closure]) -> Closure:
    keep, transform = (steps[0], steps[1]) if len(steps) == 2 else (None, steps[0])

    def run(act: dict[str, Any]) -> dict[Any, Any]:
        out = {}
        for _ in _iterate(act, range_of(act), names):
            if keep is None or _truth(keep(act)):
                out[act[names[0]]] = transform(act)
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
        return compiler._function("bind", [compiler.compile(a) for a in ([target] if target else []) + args])
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


_MACROS: Final[dict[str, Callable[[Compiler, Node | None, list[Node]], Closure]]] = {
    "has": _has,
    "bind": _bind,
    **{kind: _comprehension(kind) for kind in _LOOPS},
}
