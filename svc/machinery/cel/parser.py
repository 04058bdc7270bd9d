"""CEL source text to a small tuple AST.

Hand-written recursive descent over a regex lexer: neither PyPI candidate parses the optional
syntax (`a.?b`, `a[?i]`, `[?x]`, `{?k: v}`) that Kubernetes rules use, and a tuple AST is what the
closure compiler walks once per expression. Nodes are tuples whose first item names the kind:

``("lit", value)`` ``("ident", name)`` ``("select", operand, field, optional)``
``("index", operand, key, optional)`` ``("call", name, target | None, args)``
``("list", [(item, optional)])`` ``("map", [(key, value, optional)])``
``("cond", test, then, else)`` ``("and", left, right)`` ``("or", left, right)``
``("struct", type_name, [(field, value, optional)])`` (message construction, `Object.spec{replicas: 1}`)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from svc.machinery.cel.issues import format_issue
from svc.machinery.cel.values import CelError, Uint

Node = tuple[Any, ...]

RESERVED = frozenset(
    {
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)
_MAX_DEPTH = 250

_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\r\n\f]+|//[^\n]*)
  | (?P<string>[rR]?[bB]?[rR]?
        (?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''
        |"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
  | (?P<float>(?:\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?))
  | (?P<int>0[xX][0-9a-fA-F]+[uU]?|\d+[uU]?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<quoted>`[A-Za-z0-9_./ -]+`)
  | (?P<op>\|\||&&|==|!=|<=|>=|\.\?|\[\?|\{\?|[-+*/%!<>?:.,\[\](){}])
    """,
    re.VERBOSE | re.DOTALL,
)

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ESCAPES.update({c: c for c in "\\'\"`?"})
_INT64 = 1 << 63


class ParseError(CelError):
    """A syntax error; the message carries the position as cel-go reports it."""


def _unescape(body: str, is_bytes: bool) -> str | bytes:
    out: list[Any] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch.encode() if is_bytes else ch)
            i += 1
            continue
        esc = body[i + 1] if i + 1 < len(body) else ""
        if esc in _ESCAPES:
            text, i = _ESCAPES[esc], i + 2
        elif esc in "xX" and re.fullmatch(r"[0-9a-fA-F]{2}", body[i + 2 : i + 4]):
            code, i = int(body[i + 2 : i + 4], 16), i + 4
            text = bytes([code]) if is_bytes else chr(code)
        elif esc in "uU" and not is_bytes:
            width = 4 if esc == "u" else 8
            digits = body[i + 2 : i + 2 + width]
            if not re.fullmatch(f"[0-9a-fA-F]{{{width}}}", digits):
                raise ParseError("invalid unicode escape")
            code = int(digits, 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise ParseError("invalid unicode code point")
            text, i = chr(code), i + 2 + width
        elif re.fullmatch(r"[0-3][0-7]{2}", body[i + 1 : i + 4]):
            code, i = int(body[i + 1 : i + 4], 8), i + 4
            text = bytes([code]) if is_bytes else chr(code)
        else:
            raise ParseError(f"invalid escape sequence: \\{esc}")
        out.append(text.encode() if is_bytes and isinstance(text, str) else text)
    return b"".join(out) if is_bytes else "".join(out)


def _string_literal(token: str) -> str | bytes:
    prefix = re.match(r"[rRbB]*", token).group().lower()
    body = token[len(prefix) :]
    quote = 3 if body[:3] in ('"""', "'''") else 1
    body = body[quote:-quote]
    if "r" in prefix:
        return body.encode() if "b" in prefix else body
    return _unescape(body, "b" in prefix)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ParseError(format_issue(text, pos, f"Syntax error: token recognition error at: '{text[pos]}'"))
        if m.lastgroup != "space":
            out.append((m.lastgroup, m.group(), pos))
        pos = m.end()
    out.append(("eof", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.positions: dict[int, int] = {}
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0

    def peek(self) -> str:
        return self.toks[self.i][1] if self.toks[self.i][0] in ("op", "ident") else self.toks[self.i][0]

    def fail(self, what: str = "") -> ParseError:
        _kind, text, pos = self.toks[self.i]
        shown = text or "<EOF>"
        return ParseError(format_issue(self.text, pos, f"Syntax error: {what or f'mismatched input {shown!r}'}"))

    def take(self, expected: str | None = None) -> tuple[str, str, int]:
        tok = self.toks[self.i]
        if expected is not None and self.peek() != expected:
            raise self.fail(f"missing {expected!r} at {tok[1]!r}")
        self.i += 1
        return tok

    def at(self, position: int, node: Node) -> Node:
        """Record where `node` starts (its operator for calls and selections), for checker errors."""
        self.positions[id(node)] = position
        return node

    def position(self) -> int:
        return self.toks[self.i][2]

    def nested(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise ParseError("expression recursion limit exceeded")

    def expr(self) -> Node:
        self.nested()
        test = self.binary(0)
        if self.peek() == "?":
            where = self.take()[2]
            then = self.binary(0)
            self.take(":")
            test = self.at(where, ("cond", test, then, self.expr()))
        self.depth -= 1
        return test

    _LEVELS = (("||",), ("&&",), ("==", "!=", "<", "<=", ">", ">=", "in"), ("+", "-"), ("*", "/", "%"))
    _NAMES = {"||": "or", "&&": "and"}

    def binary(self, level: int) -> Node:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in self._LEVELS[level] and self.toks[self.i][0] in ("op", "ident"):
            _, op, where = self.take()
            self.nested()
            right = self.binary(level + 1)
            self.depth -= 1
            if op in self._NAMES:
                left = self.at(where, (self._NAMES[op], left, right))
            else:
                left = self.at(where, ("call", "_" + op + "_" if op != "in" else "@in", None, [left, right]))
        return left

    def unary(self) -> Node:
        op = self.peek()
        if op in ("!", "-"):
            where = self.position()
            count = 0
            while self.peek() == op:
                self.take()
                count += 1
            self.nested()
            literal = op == "-" and count % 2 == 1 and self.toks[self.i][0] in ("int", "float")
            operand = self.unary() if op == "-" else self.member()
            self.depth -= 1
            if literal and operand[0] == "lit" and type(operand[1]) in (int, float):
                return self._negate_literal(operand, count)
            for _ in range(count):
                operand = self.at(where, ("call", "!_" if op == "!" else "-_", None, [operand]))
            return operand
        return self.member()

    def _negate_literal(self, operand: Node, count: int) -> Node:
        value = -operand[1]
        if type(value) is int and value < -_INT64:
            raise ParseError("invalid int literal")
        node: Node = ("lit", value)
        for _ in range(count - 1):
            node = ("call", "-_", None, [node])
        return node

    def member(self) -> Node:
        node = self.primary()
        while True:
            op = self.peek()
            if op in (".", ".?"):
                where = self.take()[2]
                name = self.take()
                if name[0] == "quoted":
                    node = self.at(where, ("select", node, name[1][1:-1], op == ".?"))
                    continue
                if name[0] != "ident":
                    raise self.fail("no viable alternative")
                if op == "." and self.peek() == "(":
                    node = self.at(self.position(), ("call", name[1], node, self.args(")")))
                elif op == "." and self.peek() in ("{", "{?") and _qualified_name(node) is not None:
                    node = self.at(where, self.struct_literal(f"{_qualified_name(node)}.{name[1]}"))
                else:
                    node = self.at(where, ("select", node, name[1], op == ".?"))
            elif op in ("[", "[?"):
                where = self.take()[2]
                key = self.expr()
                self.take("]")
                node = self.at(where, ("index", node, key, op == "[?"))
            else:
                return node

    def args(self, close: str) -> list[Node]:
        self.take("(")
        out = []
        while self.peek() != close:
            out.append(self.expr())
            if self.peek() != ",":
                break
            self.take()
        self.take(close)
        return out

    def primary(self) -> Node:
        where = self.position()
        node = self._primary()
        if id(node) not in self.positions:
            self.at(where, node)
        return node

    def _primary(self) -> Node:
        kind, text, _ = self.toks[self.i]
        if kind == "int":
            self.take()
            if text[-1] in "uU":
                value = int(text[:-1], 0)
                if value >= 1 << 64:
                    raise ParseError("invalid uint literal")
                return ("lit", Uint(value))
            value = int(text, 0)
            if value > _INT64 or (value == _INT64 and not self._after_minus()):
                raise ParseError("invalid int literal")
            return ("lit", value)
        if kind == "float":
            self.take()
            return ("lit", float(text))
        if kind == "string":
            self.take()
            return ("lit", _string_literal(text))
        if kind == "ident":
            return self.identifier()
        if text == ".":
            self.take()
            return self.identifier(leading_dot=True)
        if text == "(":
            self.take()
            node = self.expr()
            self.take(")")
            return node
        if text in ("[", "[?"):
            return self.list_literal()
        if text in ("{", "{?"):
            return self.map_literal()
        raise self.fail()

    def _after_minus(self) -> bool:
        return self.i >= 2 and self.toks[self.i - 2][1] == "-"

    def identifier(self, leading_dot: bool = False) -> Node:
        kind, name, _ = self.take()
        if kind != "ident":
            raise self.fail()
        if name in RESERVED:
            raise self.fail(f"reserved identifier: {name}")
        literals = {"true": True, "false": False, "null": None}
        if name in literals and not leading_dot:
            return ("lit", literals[name])
        if self.peek() == "(":
            return self.at(self.toks[self.i - 1][2], ("call", name, None, self.args(")")))
        if self.peek() in ("{", "{?"):
            return self.struct_literal("." + name if leading_dot else name)
        return ("ident", "." + name if leading_dot else name)

    def struct_literal(self, type_name: str) -> Node:
        """`Type{field: value, ?optional: value}`; which types exist is the compiler's business."""
        fields = []
        optional = self.take()[1] == "{?"
        while self.peek() != "}":
            if self.peek() == "?":
                self.take()
                optional = True
            kind, field, _ = self.take()
            if kind != "ident":
                raise self.fail()
            self.take(":")
            fields.append((field, self.expr(), optional))
            optional = False
            if self.peek() != ",":
                break
            self.take()
        self.take("}")
        return ("struct", type_name, fields)

    def list_literal(self) -> Node:
        optional = self.take()[1] == "[?"
        items = []
        while self.peek() != "]":
            if self.peek() == "?":
                self.take()
                optional = True
            items.append((self.expr(), optional))
            optional = False
            if self.peek() != ",":
                break
            self.take()
        self.take("]")
        return ("list", items)

    def map_literal(self) -> Node:
        entries = []
        tok = self.take()[1]
        optional = tok == "{?"
        while self.peek() != "}":
            if self.peek() == "?":
                self.take()
                optional = True
            key = self.expr()
            self.take(":")
            entries.append((key, self.expr(), optional))
            optional = False
            if self.peek() != ",":
                break
            self.take()
        self.take("}")
        return ("map", entries)


def _qualified_name(node: Node) -> str | None:
    """`a.b.c` when `node` is a chain of plain selections on an identifier (a qualified type name)."""
    parts = []
    while node[0] == "select" and not node[3]:
        parts.append(node[2])
        node = node[1]
    if node[0] != "ident":
        return None
    return ".".join([node[1], *reversed(parts)])


@dataclass(frozen=True)
class Parsed:
    """An expression's AST with each node's offset in the source (keyed by the node's `id`, which
    is stable while `root` is alive)."""

    text: str
    root: Node
    positions: dict[int, int]

    def issue(self, node: Node | None, message: str) -> str:
        """`message` located at `node` in cel-go's form."""
        return format_issue(self.text, self.positions.get(id(node), 0), message)


def parse(text: str) -> Node:
    """Parse one expression; raises `ParseError` with cel-go's wording where it matters."""
    return parse_with_positions(text).root


def parse_with_positions(text: str) -> Parsed:
    parser = _Parser(text)
    node = parser.expr()
    if parser.peek() != "eof":
        raise parser.fail(f"extraneous input {parser.toks[parser.i][1]!r}")
    return Parsed(text, node, parser.positions)
