"""Compile a parsed CEL expression into nested Python closures.

Each node becomes one closure `f(act)` over the activation dict, so evaluating a rule is a chain of
Python calls on the object's own dicts with nothing converted. Macros live in `macros`, runtime access
helpers in `access`. Errors are exceptions; `&&` and `||` absorb an error when the other side
decides the result, as CEL's commutative logic requires.

Runtime cost (see `cost`): closures add their units to the `Cost` kept under `COST` in the
activation. Identifiers and selections only add; calls and loop steps also check the limit, and
`Program` checks it once more at the end, so a long evaluation stops early and none passes over.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any, Final

from svc.machinery.cel.access import (
    COST,
    Closure,
    apply_function,
    field_path,
    index,
    index_optional,
    optional_or,
    select,
    select_optional,
)
from svc.machinery.cel.cost import CALL_COSTS, LIST_CREATE, MAP_CREATE, STRUCT_CREATE, VALUE_COSTS, call_cost
from svc.machinery.cel.macros import MACROS
from svc.machinery.cel.operators import BINARY, ORDERED, UNARY, lookup
from svc.machinery.cel.parser import Node, Parsed
from svc.machinery.cel.re2 import RegexError, compile_re2
from svc.machinery.cel.values import TYPE_IDENTIFIERS, CelError, CompileError, NoSuchOverload, Optional, Uint, map_key

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


# Kubernetes compiles the constant patterns of its regex library when it builds the program.
_REGEX_CONSTANTS: Final = frozenset(("find", "findAll"))


def _precompile(pattern: str) -> None:
    try:
        compile_re2(pattern)
    except RegexError as err:
        raise CompileError(f"program instantiation failed: {err}") from err


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
            return lambda act: select_optional(target(act), field)

        def general(act: dict[str, Any]) -> Any:
            value = target(act)
            act[COST].used += 1
            return select(value, field)

        path = self._field_path(("select", operand, field, optional))
        return general if path is None else field_path(path[0], path[1], general)

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
        target, key_of = self.compile(operand), self.compile(key)
        if optional:
            return lambda act: index_optional(target(act), key_of(act))

        def item(act: dict[str, Any]) -> Any:
            container, found = target(act), key_of(act)
            act[COST].charge(1)
            return index(container, found)

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
                out[map_key(key)] = value
            return out

        return build

    def _struct(self, type_name: str, fields: list[tuple[str, Node, bool]]) -> Closure:
        """Message construction builds a plain dict. The root of the type name must be declared in
        the environment (admission policies declare `Object` and `JSONPatch`); elsewhere it is an
        undeclared reference, as in cel-go without those types."""
        root = type_name.lstrip(".").split(".")[0]
        if root not in self.variables:
            return self._undeclared(type_name.lstrip("."), self.current)
        parts = [(name, self.compile(value), optional) for name, value, optional in fields]

        def build(act: dict[str, Any]) -> dict[str, Any]:
            act[COST].charge(STRUCT_CREATE)
            out: dict[str, Any] = {}
            for name, value_of, optional in parts:
                value = value_of(act)
                if optional:
                    if type(value) is not Optional:
                        raise NoSuchOverload("optional field")
                    if not value.has_value():
                        continue
                    value = value.value
                out[name] = value
            return out

        return build

    # -- calls and macros ----------------------------------------------------------------------

    def _call(self, name: str, target: Node | None, args: list[Node]) -> Closure:
        node = self.current
        macro = MACROS.get(name)
        if macro is not None and (target is not None) == (name != "has"):
            return macro(self, target, args)
        if target is not None:
            qualified = self._qualified(target)
            if qualified is not None and qualified not in self.variables and f"{qualified}.{name}" in self.functions:
                return self.function(f"{qualified}.{name}", [self.compile(a) for a in args], node)
            if name == "or" and len(args) == 1:
                return optional_or(self.compile(target), self.compile(args[0]))
            if name in _REGEX_CONSTANTS and args and args[0][0] == "lit" and type(args[0][1]) is str:
                _precompile(args[0][1])
            return self.function(name, [self.compile(target), *(self.compile(a) for a in args)], node)
        if name in BINARY:
            return self._binary(name, args)
        if name in UNARY:
            fn, operand = UNARY[name], self.compile(args[0])

            def unary(act: dict[str, Any]) -> Any:
                value = operand(act)
                act[COST].charge(1)
                return fn(value)

            return unary
        return self.function(name, [self.compile(a) for a in args], node)

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

    def function(self, name: str, args: list[Closure], node: Node | None = None) -> Closure:
        fn = self.functions.get(name)
        if fn is None:
            return self._undeclared(name, node)
        value_cost = VALUE_COSTS.get(name)
        if value_cost is not None:

            def by_value(act: dict[str, Any]) -> Any:
                values = [arg(act) for arg in args]
                result = apply_function(fn, name, values)
                act[COST].charge(value_cost(values, result))
                return result

            return by_value
        if name in CALL_COSTS:

            def sized(act: dict[str, Any]) -> Any:
                values = [arg(act) for arg in args]
                act[COST].charge(call_cost(name, values))
                return apply_function(fn, name, values)

            return sized
        if len(args) == 1:
            (only,) = args

            def unary(act: dict[str, Any]) -> Any:
                value = only(act)
                act[COST].charge(1)
                return apply_function(fn, name, (value,))

            return unary

        def call(act: dict[str, Any]) -> Any:
            values = [arg(act) for arg in args]
            act[COST].charge(1)
            return apply_function(fn, name, values)

        return call

    def bind_local(self, name: str) -> None:
        self.locals.append(name)

    def unbind_local(self) -> None:
        self.locals.pop()
