"""kubectl's JSONPath dialect (`-o jsonpath=...`, `-o jsonpath-as-json=...`).

The dialect (k8s.io/client-go/util/jsonpath) differs from every JSONPath library on PyPI: text with
`{...}` actions, `{range}`/`{end}` blocks, `[?(@.x == "y")]` filters with Go's comparison rules,
string bytes under `*`, and Go-formatted values. So it is written here by hand, following the
observable behaviour of the upstream parser and evaluator (messages included).

Evaluation keeps upstream's quirks that users can see: a missing field is an error unless missing
keys are allowed; an empty `{range}` still evaluates its body (so a missing field inside it fails
when missing keys are not allowed); `[n:n]` stops the selection; map members come out in key order
(upstream's order is Go's random map order).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from svc.cli.printers.errors import TemplateError
from svc.machinery import gotext

__all__ = ["JSONPath", "TemplateError", "parse_jsonpath", "text_of"]

_DICT_KEY = re.compile(r"^'([^']*)'$")
_SLICE = re.compile(r"^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$")
_TERMINATORS = frozenset(" \t\r\n.,[]$@{}")
_END = ""


class _ParseError(Exception):
    pass


class _Missing:
    """Upstream's invalid value: what an empty `{range}` evaluates its body against."""


_MISSING = _Missing()


# --- syntax tree -----------------------------------------------------------------------------


@dataclass
class _List:
    nodes: list[Any] = field(default_factory=list)


@dataclass
class _Text:
    text: str


@dataclass
class _Field:
    name: str


@dataclass
class _Bound:
    value: int = 0
    known: bool = False
    derived: bool = False


@dataclass
class _Array:
    bounds: tuple[_Bound, _Bound, _Bound]


@dataclass
class _Filter:
    left: _List
    right: _List
    operator: str


@dataclass
class _Literal:
    value: Any


class _Wildcard:
    pass


class _Recursive:
    pass


@dataclass
class _Union:
    members: list[_List]


@dataclass
class _Identifier:
    name: str


# --- parser ----------------------------------------------------------------------------------


def _is_alphanumeric(char: str) -> bool:
    """Go's letter, decimal digit or underscore."""
    if char == _END:
        return False
    category = unicodedata.category(char)
    return char == "_" or category[0] == "L" or category == "Nd"


def _rune_name(char: str) -> str:
    """Go's `%#U`."""
    text = f"U+{ord(char):04X}"
    return f"{text} '{char}'" if gotext.is_print(char) else text


def _unquote(text: str) -> str:
    """Go's strconv.Unquote, extended to single-quoted strings."""
    quote, body = text[0], text[1:-1]
    if "\\" not in body and quote not in body:
        return body
    out: list[str] = []
    i = 0
    simple = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
    while i < len(body):
        char = body[i]
        if char == quote:
            raise _ParseError(f"unquote string {text} error invalid syntax")
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= len(body):
            raise _ParseError(f"unquote string {text} error invalid syntax")
        escape = body[i + 1]
        i += 2
        if escape in simple:
            out.append(simple[escape])
        elif escape == quote:
            out.append(escape)
        elif escape in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[escape]
            digits = body[i : i + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise _ParseError(f"unquote string {text} error invalid syntax")
            code = int(digits, 16)
            if escape != "x" and (code > 0x10FFFF or 0xD800 <= code <= 0xDFFF):
                raise _ParseError(f"unquote string {text} error invalid syntax")
            out.append(chr(code))
            i += width
        elif escape in "01234567":
            digits = body[i - 1 : i + 2]
            if len(digits) != 3 or not all(c in "01234567" for c in digits) or int(digits, 8) > 255:
                raise _ParseError(f"unquote string {text} error invalid syntax")
            out.append(chr(int(digits, 8)))
            i += 2
        else:
            raise _ParseError(f"unquote string {text} error invalid syntax")
    return "".join(out)


class _Parser:
    """Turns template text into a flat list of text nodes and one `_List` per `{...}` action."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.start = 0
        self.root: list[Any] = []

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else _END

    def _next(self) -> str:
        char = self._peek()
        if char != _END:
            self.pos += 1
        return char

    def _consume(self) -> str:
        value = self.text[self.start : self.pos]
        self.start = self.pos
        return value

    def parse(self) -> list[Any]:
        while True:
            brace = self.text.find("{", self.pos)
            if brace < 0:
                self.pos = len(self.text)
                if self.pos > self.start:
                    self.root.append(_Text(self._consume()))
                return self.root
            self.pos = brace
            if self.pos > self.start:
                self.root.append(_Text(self._consume()))
            self.pos += 1
            self._consume()
            action = _List()
            self.root.append(action)
            self._inside_action(action)

    def _inside_action(self, current: _List) -> None:
        while True:
            rest = self.text[self.pos :]
            if rest.startswith("}"):
                self.pos += 1
                self._consume()
                return
            if rest.startswith("[?("):
                self._filter(current)
                continue
            if rest.startswith(".."):
                self._recursive(current)
                continue
            char = self._next()
            if char in (_END, "\r", "\n"):
                raise _ParseError("unclosed action")
            if char in " @$":
                self._consume()
            elif char == "[":
                self._array(current)
            elif char in "\"'":
                self._quoted(current, char)
            elif char == ".":
                self._field(current)
            elif char in "+-" or char.isdecimal():
                self.pos -= 1
                self._number(current)
            elif _is_alphanumeric(char):
                self.pos -= 1
                self._identifier(current)
            else:
                raise _ParseError(f"unrecognized character in action: {_rune_name(char)}")

    def _identifier(self, current: _List) -> None:
        while self._peek() not in _TERMINATORS and self._peek() != _END:
            self.pos += 1
        value = self._consume()
        current.nodes.append(_Literal(value == "true") if value in ("true", "false") else _Identifier(value))

    def _recursive(self, current: _List) -> None:
        if current.nodes and isinstance(current.nodes[-1], _Recursive):
            raise _ParseError("invalid multiple recursive descent")
        self.pos += 2
        self._consume()
        current.nodes.append(_Recursive())
        if _is_alphanumeric(self._peek()):
            self._field(current)

    def _number(self, current: _List) -> None:
        if self._peek() in "+-" and self._peek() != _END:
            self.pos += 1
        while self._peek() != _END and (self._peek() == "." or self._peek().isdecimal()):
            self.pos += 1
        value = self._consume()
        if re.fullmatch(r"[+-]?[0-9]+", value):
            current.nodes.append(_Literal(gotext.GoInt(int(value))))
            return
        try:
            current.nodes.append(_Literal(float(value)))
        except ValueError:
            raise _ParseError(f"cannot parse number {value}") from None

    def _array(self, current: _List) -> None:
        while True:
            char = self._next()
            if char in (_END, "\n"):
                raise _ParseError("unterminated array")
            if char == "]":
                break
        text = self._consume()[1:-1]
        if text == "*":
            text = ":"
        parts = text.split(",")
        if len(parts) > 1:
            current.nodes.append(_Union([_parse_action(f"[{part.strip(' ')}]") for part in parts]))
            return
        key = _DICT_KEY.match(text)
        if key:
            current.nodes.extend(_parse_action(f".{key.group(1)}").nodes)
            return
        match = _SLICE.match(text)
        if match is None:
            raise _ParseError(f"invalid array index {text}")
        bounds = (_Bound(), _Bound(), _Bound())
        for i, group in enumerate(match.groups()):
            group = group or ""
            if group:
                digits = group[1:] if i > 0 else group
                if i > 0 and not digits:
                    continue
                try:
                    bounds[i].value = int(digits)
                except ValueError:
                    raise _ParseError(f"array index {digits} is not a number") from None
                bounds[i].known = True
            elif i == 1:
                bounds[1].value = bounds[0].value + 1
                bounds[1].known = bounds[1].derived = True
        current.nodes.append(_Array(bounds))

    def _filter(self, current: _List) -> None:
        self.pos += 3
        self._consume()
        opened = closed = False
        pair = ""
        while True:
            char = self._next()
            if char in (_END, "\n"):
                raise _ParseError("unterminated filter")
            if char in "\"'":
                if not opened:
                    opened, pair = True, char
                    continue
                if self.text[self.pos - 2] != "\\" and char == pair:
                    closed = True
            elif char == ")" and opened == closed:
                break
        if self._next() != "]":
            raise _ParseError("unclosed array expect ]")
        text = self._consume()[:-2]
        match = _FILTER.match(text)
        if match is None:
            current.nodes.append(_Filter(_parse_action(text), _List(), "exists"))
        else:
            left, operator, right = match.groups()
            current.nodes.append(_Filter(_parse_action(left), _parse_action(right), operator))

    def _quoted(self, current: _List, quote: str) -> None:
        while True:
            char = self._next()
            if char in (_END, "\n"):
                raise _ParseError("unterminated quoted string")
            if char == quote and self.text[self.pos - 2] != "\\":
                break
        current.nodes.append(_Text(_unquote(self._consume())))

    def _field(self, current: _List) -> None:
        self._consume()
        while True:
            char = self._next()
            if char == "\\":
                self._next()
            elif char in _TERMINATORS or char == _END:
                if char != _END:
                    self.pos -= 1
                break
        value = self._consume()
        current.nodes.append(_Wildcard() if value == "*" else _Field(value.replace("\\", "")))


def _parse_action(text: str) -> _List:
    """A nested expression (union member, filter side) parsed as if it were one action."""
    first: _List = _Parser("{" + text + "}").parse()[0]
    return first


# --- evaluation ------------------------------------------------------------------------------


class _EvalError(Exception):
    """An evaluation failure and the values upstream hands back with it (seen by `exists` filters)."""

    def __init__(self, message: str, partial: list[Any]) -> None:
        super().__init__(message)
        self.partial = partial


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return [gotext.GoByte(b) for b in value.encode()]
    return []


def _kind(value: Any) -> str:
    kind = gotext.basic_kind(value)
    if kind == "invalid":
        raise _EvalError("invalid type for comparison", [])
    return kind


def _equal(left: Any, right: Any) -> bool:
    kinds = {_kind(left), _kind(right)}
    if len(kinds) > 1 and kinds != {"int", "uint"}:
        raise _EvalError("incompatible types for comparison", [])
    return left == right


def _less(left: Any, right: Any) -> bool:
    kinds = {_kind(left), _kind(right)}
    if len(kinds) > 1 and kinds != {"int", "uint"}:
        raise _EvalError("incompatible types for comparison", [])
    if kinds == {"bool"}:
        raise _EvalError("invalid type for comparison", [])
    return left < right


_COMPARISONS = {
    "==": _equal,
    "!=": lambda a, b: not _equal(a, b),
    "<": _less,
    "<=": lambda a, b: _less(a, b) or _equal(a, b),
    ">": lambda a, b: not (_less(a, b) or _equal(a, b)),
    ">=": lambda a, b: not _less(a, b),
}


class _Run:
    """One execution: the range bookkeeping upstream keeps between actions."""

    def __init__(self, root: list[Any], allow_missing_keys: bool) -> None:
        self.root = root
        self.allow_missing = allow_missing_keys
        self.begin_range = 0
        self.in_range = 0
        self.end_range = 0
        self.last_end = -1

    def find(self, data: Any, start: int) -> list[list[Any]]:
        found: list[list[Any]] = []
        i = start
        while i < len(self.root):
            results = self.walk([data], self.root[i])
            if 0 < self.end_range <= self.in_range:
                self.end_range -= 1
                self.last_end = i
                break
            if self.begin_range > 0:
                self.begin_range -= 1
                self.in_range += 1
                if results:
                    for value in results:
                        found.extend(self.find(value, i + 1))
                else:
                    self.find(_MISSING, i + 1)
                self.in_range -= 1
                if self.last_end > i:
                    i = self.last_end
                i += 1
                continue
            found.append(results)
            i += 1
        return found

    def walk(self, values: list[Any], node: Any) -> list[Any]:
        if isinstance(node, _List):
            return self.walk_list(values, node)
        if isinstance(node, _Text):
            return [node.text]
        if isinstance(node, _Field):
            return self.field(values, node.name)
        if isinstance(node, _Array):
            return self.array(values, node.bounds)
        if isinstance(node, _Filter):
            return self.filter(values, node)
        if isinstance(node, _Literal):
            return [node.value for _ in values]
        if isinstance(node, _Wildcard):
            return [child for value in values if value is not None for child in _children(value)]
        if isinstance(node, _Recursive):
            return self.recursive(values)
        if isinstance(node, _Union):
            return self.union(values, node)
        return self.identifier(values, node.name)

    def walk_list(self, values: list[Any], node: _List) -> list[Any]:
        for child in node.nodes:
            values = self.walk(values, child)
        return values

    def identifier(self, values: list[Any], name: str) -> list[Any]:
        if name == "range":
            self.begin_range += 1
            return values
        if name == "end":
            if self.in_range == 0:
                raise _EvalError("not in range, nothing to end", [])
            self.end_range += 1
            return []
        raise _EvalError(f"unrecognized identifier {name}", values)

    def field(self, values: list[Any], name: str) -> list[Any]:
        if not values:
            return []
        results = [value[name] for value in values if isinstance(value, dict) and name in value]
        if not results and not self.allow_missing:
            raise _EvalError(f"{name} is not found", [])
        return results

    def array(self, values: list[Any], bounds: tuple[_Bound, _Bound, _Bound]) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if value is None or value is _MISSING:
                continue
            if not isinstance(value, list):
                raise _EvalError(f"{gotext.type_name(value)} is not array or slice", values)
            length = len(value)
            start = bounds[0].value if bounds[0].known else 0
            if start < 0:
                start += length
            end = bounds[1].value if bounds[1].known else length
            if end < 0 or (end == 0 and bounds[1].derived):
                end += length
            if end == start:
                return results
            if start >= length or start < 0:
                raise _EvalError(f"array index out of bounds: index {start}, length {length}", values)
            if end > length or end < 0:
                raise _EvalError(f"array index out of bounds: index {end - 1}, length {length}", values)
            if start > end:
                raise _EvalError(f"starting index {start} is greater than ending index {end}", values)
            step = 1
            if bounds[2].known:
                if bounds[2].value <= 0:
                    raise _EvalError("step must be > 0", values)
                step = bounds[2].value
            results.extend(value[start:end:step])
        return results

    def filter(self, values: list[Any], node: _Filter) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if not isinstance(value, list):
                shown = "<invalid reflect.Value>" if value is _MISSING else gotext.format_v(value)
                raise _EvalError(f"{shown} is not array or slice and cannot be filtered", values)
            for item in value:
                if node.operator == "exists":
                    try:
                        lefts = self.walk_list([item], node.left)
                    except _EvalError as error:
                        lefts = error.partial
                    if lefts:
                        results.append(item)
                    continue
                if self._compare(item, node, values, results):
                    results.append(item)
        return results

    def _compare(self, item: Any, node: _Filter, values: list[Any], results: list[Any]) -> bool:
        lefts = self._operand(item, node.left, values)
        if not lefts:
            return False
        rights = self._operand(item, node.right, values)
        if not rights:
            return False
        compare = _COMPARISONS.get(node.operator)
        if compare is None:
            raise _EvalError(f"unrecognized filter operator {node.operator}", results)
        try:
            return compare(lefts[0], rights[0])
        except _EvalError as error:
            raise _EvalError(str(error), results) from None

    def _operand(self, item: Any, side: _List, values: list[Any]) -> list[Any]:
        try:
            found = self.walk_list([item], side)
        except _EvalError as error:
            raise _EvalError(str(error), values) from None
        if len(found) > 1:
            raise _EvalError("can only compare one element at a time", values)
        return found

    def recursive(self, values: list[Any]) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if value is None:
                continue
            children = _children(value)
            if children:
                results.append(value)
                results.extend(self.recursive(children))
        return results

    def union(self, values: list[Any], node: _Union) -> list[Any]:
        results: list[Any] = []
        for member in node.members:
            try:
                results.extend(self.walk_list(values, member))
            except _EvalError as error:
                raise _EvalError(str(error), values) from None
        return results


def text_of(value: Any) -> str:
    """A value as the template prints it (Go formatting; objects and lists as JSON)."""
    if isinstance(value, (dict, list)):
        return gotext.json_marshal(value)
    if value is None:
        return "null"
    return gotext.format_v(value)


@dataclass(frozen=True)
class JSONPath:
    """A parsed template; execute it against JSON-decoded data (dicts, lists, scalars)."""

    template: str
    _root: list[Any]

    def execute(self, data: Any, *, allow_missing_keys: bool) -> str:
        """The text kubectl prints for `-o jsonpath=<template>`."""
        results = self._results(data, allow_missing_keys)
        return "".join(" ".join(text_of(value) for value in values) for values in results)

    def execute_as_json(self, data: Any, *, allow_missing_keys: bool) -> str:
        """The text kubectl prints for `-o jsonpath-as-json=<template>`: one JSON array per action."""
        results = self._results(data, allow_missing_keys)
        return "".join(gotext.json_marshal(values, "    ") + "\n" for values in results)

    def find(self, data: Any, *, allow_missing_keys: bool) -> list[list[Any]]:
        """The values each action selects (the server's Table columns of custom resources use them)."""
        return self._results(data, allow_missing_keys)

    def _results(self, data: Any, allow_missing_keys: bool) -> list[list[Any]]:
        try:
            return _Run(self._root, allow_missing_keys).find(data, 0)
        except _EvalError as error:
            raise TemplateError(
                f"error executing jsonpath {gotext.quote(self.template)}: Error executing template: {error}. "
                "Printing more information for debugging the template:\n"
                f"\ttemplate was:\n\t\t{self.template}\n"
                f"\tobject given to jsonpath engine was:\n\t\t{gotext.format_sharp_v(data)}\n\n\n"
            ) from None


def parse_jsonpath(template: str) -> JSONPath:
    """Parse a kubectl JSONPath template; the text is used as given (kubectl adds no braces)."""
    try:
        return JSONPath(template, _Parser(template).parse())
    except _ParseError as error:
        raise TemplateError(f"error parsing jsonpath {template}, {error}") from None
