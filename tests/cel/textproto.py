"""A schema-less reader of protobuf text format, enough for the CEL conformance files.

No ``protoc`` is available to compile the spec's .proto files, so the loader reads the text
format generically: every message becomes a dict mapping a field name to the *list* of its
values (text format cannot tell a repeated field from a singular one without the schema).
Strings stay ``bytes`` because the format escapes bytes; callers decode string fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Message = dict[str, list[object]]

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>-?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFuU]?)
  | (?P<name>-?[A-Za-z_][\w.]*)
  | (?P<punct>[{}<>:\[\],;/])
    """,
    re.VERBOSE,
)

_SIMPLE_ESCAPES = {
    "n": b"\n",
    "t": b"\t",
    "r": b"\r",
    "a": b"\a",
    "b": b"\b",
    "f": b"\f",
    "v": b"\v",
    "\\": b"\\",
    "'": b"'",
    '"': b'"',
    "?": b"?",
}


@dataclass(frozen=True)
class Enum:
    """An enum constant or other bare identifier value (``NULL_VALUE``, ``true``)."""

    name: str


def _unescape(body: str) -> bytes:
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode()
            i += 1
            continue
        esc = body[i + 1]
        if esc in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[esc]
            i += 2
        elif esc in "xX":
            m = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :])
            out.append(int(m.group(), 16))
            i += 2 + len(m.group())
        elif esc in "uU":
            width = 4 if esc == "u" else 8
            out += chr(int(body[i + 2 : i + 2 + width], 16)).encode("utf-8", "surrogatepass")
            i += 2 + width
        else:
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            out.append(int(m.group(), 8))
            i += 1 + len(m.group())
    return bytes(out)


def _tokens(text: str) -> list[tuple[str, str]]:
    pos, out = 0, []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"unexpected text at {pos}: {text[pos : pos + 20]!r}")
        pos = m.end()
        if m.lastgroup != "space":
            out.append((m.lastgroup, m.group()))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.toks[self.i]
        if value is not None and tok[1] != value:
            raise ValueError(f"expected {value!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def message(self, close: str | None) -> Message:
        msg: Message = {}
        while (tok := self.peek()) is not None and tok[1] != close:
            name = self.field_name()
            if self.peek()[1] == ":":
                self.take()
            values = self.value_list() if self.peek()[1] == "[" else [self.value()]
            msg.setdefault(name, []).extend(values)
            if self.peek() is not None and self.peek()[1] in ",;":
                self.take()
        if close is not None:
            self.take(close)
        return msg

    def field_name(self) -> str:
        _kind, text = self.take()
        if text != "[":
            return text
        parts = []
        while (tok := self.take())[1] != "]":
            parts.append(tok[1])
        return "[" + "".join(parts) + "]"

    def value_list(self) -> list[object]:
        self.take("[")
        values: list[object] = []
        while self.peek()[1] != "]":
            values.append(self.value())
            if self.peek()[1] == ",":
                self.take()
        self.take("]")
        return values

    def value(self) -> object:
        kind, text = self.take()
        if text in "{<":
            return self.message("}" if text == "{" else ">")
        if kind == "string":
            raw = _unescape(text[1:-1])
            while (tok := self.peek()) is not None and tok[0] == "string":
                raw += _unescape(self.take()[1][1:-1])
            return raw
        if kind == "number":
            return _number(text)
        if text.lstrip("-").lower() in ("inf", "infinity", "nan"):
            return float(text)
        return Enum(text)


def _number(text: str) -> int | float:
    body = text.rstrip("uUfF") if not text.lower().startswith(("0x", "-0x")) else text
    if re.fullmatch(r"-?0[xX][0-9a-fA-F]+", body):
        return int(body, 16)
    if re.fullmatch(r"-?\d+", body) and not text.endswith(("f", "F")):
        return int(body)
    return float(body)


def parse(text: str) -> Message:
    """Parse a whole text-format document into nested field dicts."""
    return _Parser(text).message(None)


def first(msg: Message, name: str, default: object = None) -> object:
    """The single value of a singular field, or ``default`` when absent."""
    values = msg.get(name)
    return values[-1] if values else default
