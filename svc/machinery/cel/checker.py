"""Static checking of an expression against declared variable types (a CRD rule's `self` typed by
its schema), reporting cel-go's messages with their `ERROR: <input>:line:col:` locations.

It catches what upstream rejects when a CRD or policy is written: undefined fields, operators and
functions applied to the wrong types, ranges that are not lists or maps. Where a type is `dyn`
(int-or-string, preserved unknown fields, functions without a signature here) it defers to
evaluation, as cel-go does for `dyn`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from svc.machinery.cel import types
from svc.machinery.cel.conversions import to_duration, to_timestamp
from svc.machinery.cel.parser import Node, Parsed, parse_with_positions
from svc.machinery.cel.re2 import compile_re2
from svc.machinery.cel.signatures import DISPLAY_NAMES, GLOBALS, MEMBERS, Overload, resolve
from svc.machinery.cel.types import BOOL, DYN, INT, NULL, STRING, Type
from svc.machinery.cel.values import CelError, Uint

_N = types.NUMBERS
_ARITHMETIC: Final[dict[str, dict[tuple[Type, Type], Type]]] = {
    "_+_": {
        **{(t, t): t for t in (*_N, STRING, types.BYTES, types.DURATION)},
        (types.TIMESTAMP, types.DURATION): types.TIMESTAMP,
        (types.DURATION, types.TIMESTAMP): types.TIMESTAMP,
    },
    "_-_": {
        **{(t, t): t for t in (*_N, types.DURATION)},
        (types.TIMESTAMP, types.TIMESTAMP): types.DURATION,
        (types.TIMESTAMP, types.DURATION): types.TIMESTAMP,
    },
    "_*_": {(t, t): t for t in _N},
    "_/_": {(t, t): t for t in _N},
    "_%_": {(t, t): t for t in (types.INT, types.UINT)},
}
_ORDERED: Final = frozenset((*_N, STRING, types.BYTES, BOOL, types.TIMESTAMP, types.DURATION))
_COMPARISONS: Final = frozenset(("_<_", "_<=_", "_>_", "_>=_"))
# Members declared on optionals: any other member call on an optional is left to runtime.
_OPTIONAL_MEMBERS: Final = frozenset(("hasValue", "value", "orValue", "or"))
_STRING_MEMBERS: Final[dict[str, Type]] = {
    "contains": BOOL,
    "startsWith": BOOL,
    "endsWith": BOOL,
    "matches": BOOL,
    "find": STRING,
    "findAll": types.list_of(STRING),
    "charAt": STRING,
    "lowerAscii": STRING,
    "upperAscii": STRING,
    "replace": STRING,
    "split": types.list_of(STRING),
    "substring": STRING,
    "trim": STRING,
    "format": STRING,
}
# String members whose first argument is a string too.
_STRING_ARGUMENTS: Final = frozenset(("contains", "startsWith", "endsWith", "matches", "find", "findAll", "split"))
# String members whose result is no longer than their receiver.
_SIZE_PRESERVING: Final = frozenset(("lowerAscii", "upperAscii", "trim", "substring"))
_GLOBALS: Final[dict[str, Type]] = {
    "size": INT,
    "int": INT,
    "uint": types.UINT,
    "double": types.DOUBLE,
    "string": STRING,
    "bytes": types.BYTES,
    "bool": BOOL,
    "type": types.TYPE,
    "timestamp": types.TIMESTAMP,
    "duration": types.DURATION,
    "isURL": BOOL,
    "isQuantity": BOOL,
    "isIP": BOOL,
    "isCIDR": BOOL,
    "isSemver": BOOL,
    "ip.isCanonical": BOOL,
    "jsonpatch.escapeKey": STRING,
    "strings.quote": STRING,
}
_MEMBERS: Final[dict[str, Type]] = {
    "size": INT,
    "isSorted": BOOL,
    "indexOf": INT,
    "lastIndexOf": INT,
    "includes": BOOL,
    "getScheme": STRING,
    "getHost": STRING,
    "getHostname": STRING,
    "getPort": STRING,
    "getEscapedPath": STRING,
    "isGreaterThan": BOOL,
    "isLessThan": BOOL,
    "compareTo": INT,
    "isInteger": BOOL,
    "asInteger": INT,
    "asApproximateFloat": types.DOUBLE,
    "join": STRING,
    "containsIP": BOOL,
    "containsCIDR": BOOL,
    "isUnspecified": BOOL,
    "isLoopback": BOOL,
    "isLinkLocalMulticast": BOOL,
    "isLinkLocalUnicast": BOOL,
    "isGlobalUnicast": BOOL,
    "family": INT,
    "prefixLength": INT,
    "allowed": BOOL,
    "errored": BOOL,
    "reason": STRING,
    "error": STRING,
    "major": INT,
    "minor": INT,
    "patch": INT,
    "sign": INT,
}


_LITERAL_VALIDATORS: Final[dict[str, Callable[[str], object]]] = {
    "matches": compile_re2,
    "duration": to_duration,
    "timestamp": to_timestamp,
}


class CheckError(CelError):
    """One or more type errors, each as cel-go prints it."""


class _Checker:
    def __init__(self, parsed: Parsed, declarations: Mapping[str, Type]) -> None:
        self.parsed = parsed
        self.scopes: list[dict[str, Type]] = [dict(declarations)]
        self.errors: list[str] = []
        self.types: dict[int, Type] = {}

    def error(self, node: Node, message: str) -> Type:
        self.errors.append(self.parsed.issue(node, message))
        return DYN

    def lookup(self, name: str) -> Type | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def check(self, node: Node) -> Type:
        found = getattr(self, "_" + node[0])(node)
        self.types[id(node)] = found
        return found

    def _lit(self, node: Node) -> Type:
        value = node[1]
        if type(value) in (str, bytes):
            return types.sized(STRING if type(value) is str else types.BYTES, len(value))
        return {
            bool: BOOL,
            int: INT,
            Uint: types.UINT,
            float: types.DOUBLE,
            str: STRING,
            bytes: types.BYTES,
            type(None): NULL,
        }.get(type(value), DYN)

    def _ident(self, node: Node) -> Type:
        found = self.lookup(node[1].lstrip("."))
        return DYN if found is None else found

    def _field(self, node: Node, operand_type: Type, field: str) -> Type:
        if operand_type == DYN:
            return DYN
        if types.is_object(operand_type):
            found = operand_type.fields.get(field)
            if found is None:
                return self.error(node, f"undefined field '{field}'")
            return found
        if operand_type.kind == "map":
            return operand_type.params[1]
        if operand_type.kind == "optional":
            return self._field(node, operand_type.params[0], field)
        return self.error(node, f"type '{operand_type}' does not support field selection")

    def _select(self, node: Node) -> Type:
        _, operand, field, optional = node
        operand_type = self.check(operand)
        result = self._field(node, operand_type, field)
        if optional or operand_type.kind == "optional":
            return types.optional_of(result)
        return result

    def _index(self, node: Node) -> Type:
        _, operand, key, optional = node
        container, key_type = self.check(operand), self.check(key)
        inner = container.params[0] if container.kind == "optional" else container
        if inner.kind == "list":
            if key_type not in (INT, types.UINT, DYN):
                return self.error(node, f"found no matching overload for '_[_]' applied to '({inner}, {key_type})'")
            result = inner.params[0]
        elif inner.kind == "map":
            result = inner.params[1]
        elif inner == DYN:
            result = DYN
        else:
            return self.error(node, f"found no matching overload for '_[_]' applied to '({inner}, {key_type})'")
        return types.optional_of(result) if optional or container.kind == "optional" else result

    def _logic(self, node: Node, name: str) -> Type:
        left, right = self.check(node[1]), self.check(node[2])
        if left not in (BOOL, DYN) or right not in (BOOL, DYN):
            return self.error(node, f"found no matching overload for '{name}' applied to '({left}, {right})'")
        return BOOL

    def _and(self, node: Node) -> Type:
        return self._logic(node, "_&&_")

    def _or(self, node: Node) -> Type:
        return self._logic(node, "_||_")

    def _cond(self, node: Node) -> Type:
        test, then, other = (self.check(n) for n in node[1:])
        if test not in (BOOL, DYN):
            return self.error(node, f"found no matching overload for '_?_:_' applied to '({test}, {then}, {other})'")
        return types.join(then, other)

    def _list(self, node: Node) -> Type:
        element: Type | None = None
        for item, optional in node[1]:
            item_type = self.check(item)
            if optional and item_type.kind == "optional":
                item_type = item_type.params[0]
            element = self._homogeneous(item, element, item_type)
            if element is not None and element.kind in ("string", "bytes") and element.max_size is not None:
                element = types.sized(element, max(element.max_size, item_type.max_size or 0))
        return types.list_of(element or DYN, len(node[1]))

    def _homogeneous(self, node: Node, previous: Type | None, found: Type) -> Type:
        """Kubernetes declares aggregate literals homogeneous: every element (key, value) of a
        literal must have the type of the first, `dyn` aside."""
        if previous is None or previous == DYN:
            return found
        if found not in (DYN, previous):
            self.error(node, f"expected type '{previous}' but found '{found}'")
        return previous

    def _struct(self, node: Node) -> Type:
        """A constructed message has the type its name says (`Object.spec`, `JSONPatch`)."""
        for _, value, _ in node[2]:
            self.check(value)
        return Type(node[1].lstrip("."))

    def _map(self, node: Node) -> Type:
        key: Type | None = None
        value: Type | None = None
        for k, v, optional in node[1]:
            key_type, value_type = self.check(k), self.check(v)
            if optional and value_type.kind == "optional":
                value_type = value_type.params[0]
            key = self._homogeneous(k, key, key_type)
            value = self._homogeneous(v, value, value_type)
        return types.map_of(key or DYN, value or DYN, len(node[1]))

    def _call(self, node: Node) -> Type:
        _, name, target, args = node
        macro = _MACROS.get(name)
        if macro is not None and (target is not None) == (name != "has"):
            return macro(self, node)
        arg_types = [self.check(a) for a in args]
        self._validate_literal(name, target, args)
        if target is None and name in _ARITHMETIC:
            return self._arithmetic(node, name, *arg_types)
        if target is None and name in _COMPARISONS:
            return self._compare(node, name, *arg_types)
        if target is None and name in ("_==_", "_!=_"):
            return self._equality(node, name, *arg_types)
        if target is None and name == "@in":
            return self._membership(node, *arg_types)
        if target is None and name == "!_":
            return self._unary(node, name, arg_types[0], (BOOL,), BOOL)
        if target is None and name == "-_":
            operand = arg_types[0]
            return self._unary(node, name, operand, (INT, types.DOUBLE, types.DURATION), operand)
        if target is None and name in ("string", "bytes") and arg_types and arg_types[0].max_size is not None:
            return types.sized(STRING if name == "string" else types.BYTES, arg_types[0].max_size)
        if target is None:
            return self._typed_call(node, name, None, arg_types, GLOBALS, _GLOBALS)
        if target[0] == "ident" and self.lookup(target[1]) is None:
            qualified = f"{target[1]}.{name}"  # a namespaced function such as ip.isCanonical
            if qualified == "strings.quote" and arg_types and arg_types[0].max_size is not None:
                return types.sized(STRING, 2 * arg_types[0].max_size + 2)
            return self._typed_call(node, qualified, None, arg_types, GLOBALS, _GLOBALS)
        receiver = self.check(target)
        wrong_argument = name in _STRING_ARGUMENTS and any(t not in (STRING, DYN) for t in arg_types[:1])
        if name in _STRING_MEMBERS and (receiver not in (STRING, DYN) or wrong_argument):
            applied = ", ".join(str(t) for t in arg_types)
            return self.error(node, f"found no matching overload for '{name}' applied to '{receiver}.({applied})'")
        if name in _SIZE_PRESERVING and receiver == STRING:
            return types.sized(STRING, receiver.max_size)
        if name in _STRING_MEMBERS and name not in MEMBERS:
            return _STRING_MEMBERS[name]
        return self._typed_call(node, name, receiver, arg_types, MEMBERS, _MEMBERS)

    def _typed_call(
        self,
        node: Node,
        name: str,
        receiver: Type | None,
        arg_types: list[Type],
        signatures: Mapping[str, list[Overload]],
        fallback: Mapping[str, Type],
    ) -> Type:
        """A call checked against its declared overloads, or typed by the fallback table."""
        overloads = signatures.get(name)
        if overloads is None or (
            receiver is not None and receiver.kind == "optional" and name not in _OPTIONAL_MEMBERS
        ):
            return fallback.get(name, DYN)
        found = resolve(overloads, receiver, arg_types)
        if found is not None:
            return found
        applied = ", ".join(str(t) for t in arg_types)
        on = f"{receiver}." if receiver is not None else ""
        shown = DISPLAY_NAMES.get(name, name)
        return self.error(node, f"found no matching overload for '{shown}' applied to '{on}({applied})'")

    def _validate_literal(self, name: str, target: Node | None, args: list[Node]) -> None:
        """cel-go's literal validators, which Kubernetes enables: a string literal given to
        `matches`, `duration` or `timestamp` must parse (RE2 syntax for `matches`)."""
        validate = _LITERAL_VALIDATORS.get(name)
        if validate is None:
            return
        operand = args[-1] if args else None
        if operand is None or operand[0] != "lit" or type(operand[1]) is not str:
            return
        if name != "matches" and (target is not None or len(args) != 1):
            return
        try:
            validate(operand[1])
        except CelError:
            self.error(operand, f"invalid {name} argument")

    def _unary(self, node: Node, name: str, operand: Type, allowed: tuple[Type, ...], result: Type) -> Type:
        if operand != DYN and operand not in allowed:
            return self.error(node, f"found no matching overload for '{name}' applied to '({operand})'")
        return result

    def _arithmetic(self, node: Node, name: str, left: Type, right: Type) -> Type:
        if DYN in (left, right):
            return DYN
        if name == "_+_" and left.kind == right.kind == "list":
            return types.list_of(types.join(left.params[0], right.params[0]))
        found = _ARITHMETIC[name].get((left, right))
        if found is None:
            return self.error(node, f"found no matching overload for '{name}' applied to '({left}, {right})'")
        return found

    def _compare(self, node: Node, name: str, left: Type, right: Type) -> Type:
        if DYN in (left, right):
            return BOOL
        numeric = left in _N and right in _N
        if not numeric and (left != right or left not in _ORDERED):
            return self.error(node, f"found no matching overload for '{name}' applied to '({left}, {right})'")
        return BOOL

    def _equality(self, node: Node, name: str, left: Type, right: Type) -> Type:
        if DYN in (left, right) or NULL in (left, right) or left == right:
            return BOOL
        if left.kind == right.kind and left.kind in ("list", "map", "optional"):
            return BOOL
        if types.is_object(left) and types.is_object(right):
            return BOOL
        return self.error(node, f"found no matching overload for '{name}' applied to '({left}, {right})'")

    def _membership(self, node: Node, item: Type, container: Type) -> Type:
        if container == DYN or container.kind in ("list", "map"):
            return BOOL
        return self.error(node, f"found no matching overload for '@in' applied to '({item}, {container})'")


def _has(checker: _Checker, node: Node) -> Type:
    argument = node[3][0] if node[3] else None
    if argument is None or argument[0] != "select":
        return checker.error(node, "invalid argument to has() macro")
    checker._field(argument, checker.check(argument[1]), argument[2])
    return BOOL


def _range_element(checker: _Checker, node: Node, range_type: Type, two: bool) -> tuple[Type, Type]:
    if range_type.kind == "list":
        return (INT, range_type.params[0]) if two else (range_type.params[0], DYN)
    if range_type.kind == "map":
        return range_type.params[0], range_type.params[1]
    if range_type != DYN:
        checker.error(
            node,
            f"expression of type '{range_type}' cannot be range of a comprehension (must be list, map, or dynamic)",
        )
    return DYN, DYN


def _comprehension(result: Callable[[Type, list[Type]], Type], body_from: int = 1) -> Callable[[_Checker, Node], Type]:
    def check(checker: _Checker, node: Node) -> Type:
        _, name, target, args = node
        two = name in ("transformList", "transformMap") or (
            name not in ("map", "filter") and len(args) == 3 and args[1][0] == "ident"
        )
        names = [a[1] for a in args[: 2 if two else 1] if a[0] == "ident"]
        range_type = checker.check(target)
        first, second = _range_element(checker, node, range_type, two)
        scope = {names[0]: first} if names else {}
        if two and len(names) == 2:
            scope[names[1]] = second
        checker.scopes.append(scope)
        try:
            bodies = [checker.check(a) for a in args[len(names) :]]
        finally:
            checker.scopes.pop()
        return result(range_type, bodies)

    return check


def _element(range_type: Type) -> Type:
    return range_type.params[0] if range_type.kind == "list" else DYN


_MACROS: Final[dict[str, Callable[[_Checker, Node], Type]]] = {
    "has": _has,
    "all": _comprehension(lambda r, b: BOOL),
    "exists": _comprehension(lambda r, b: BOOL),
    "exists_one": _comprehension(lambda r, b: BOOL),
    "existsOne": _comprehension(lambda r, b: BOOL),
    "map": _comprehension(lambda r, b: types.list_of(b[-1])),
    "filter": _comprehension(lambda r, b: types.list_of(_element(r))),
    "transformList": _comprehension(lambda r, b: types.list_of(b[-1])),
    "transformMap": _comprehension(lambda r, b: types.map_of(DYN, b[-1])),
}


@dataclass(frozen=True)
class Checked:
    """A checked expression: its AST and the static type of every node (by the node's `id`)."""

    parsed: Parsed
    types: dict[int, Type]

    @property
    def result(self) -> Type:
        return self.types[id(self.parsed.root)]


def check_expression(expression: str, declarations: Mapping[str, Type]) -> Checked:
    """Check and keep every node's type (the cost estimator reads them); raises `CheckError`."""
    parsed = parse_with_positions(expression)
    checker = _Checker(parsed, declarations)
    checker.check(parsed.root)
    if checker.errors:
        raise CheckError("\n".join(checker.errors))
    return Checked(parsed, checker.types)


def check(expression: str, declarations: Mapping[str, Type]) -> Type:
    """The expression's static type; raises `CheckError` with every error cel-go would report."""
    return check_expression(expression, declarations).result


def check_rule(expression: str, declarations: Mapping[str, Type]) -> Checked:
    """A validation rule must be statically boolean (`dyn` is refused too, as upstream does)."""
    checked = check_expression(expression, declarations)
    if checked.result != BOOL:
        raise CheckError("cel expression must evaluate to a bool")
    return checked


def check_message_expression(expression: str, declarations: Mapping[str, Type]) -> Checked:
    """A rule's messageExpression must be statically a string."""
    checked = check_expression(expression, declarations)
    if checked.result != STRING:
        raise CheckError("messageExpression must evaluate to a string")
    return checked
