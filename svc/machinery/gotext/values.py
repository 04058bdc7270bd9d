"""Go's renderings of JSON-decoded values: `%T`, `%v`, `%#v` and the other fmt verbs, and json.Marshal.

Conflict messages, validation errors and kubectl's printers show values through Go's fmt and
encoding/json (`map[a:1 b:2]`, `[]interface {}{"x"}`, `%!d(string=x)`), so the output only matches if
values are printed the same way. No Python library reproduces these rules, so they are written here.

Value model (what Go's JSON decoding produces): dict = map[string]interface {}, list = []interface {},
str = string, bool = bool, int = int64, float = float64, None = nil; `GoInt` marks Go's `int`
(template literals, `len`), `GoByte` a `uint8` taken out of a string.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from svc.machinery.gotext.numbers import format_float, json_float
from svc.machinery.gotext.quoting import can_backquote, is_print, json_string, quote, quote_rune


class GoInt(int):
    """A Go `int` (not `int64`): only its type name differs."""


class GoByte(int):
    """A Go `uint8`, as indexing a string yields."""


# Checked in order: bool before int, and Go's int and uint8 markers before int64.
_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "bool"),
    (GoInt, "int"),
    (GoByte, "uint8"),
    (int, "int64"),
    (float, "float64"),
    (str, "string"),
    (dict, "map[string]interface {}"),
    (list, "[]interface {}"),
)


def type_name(value: Any) -> str:
    """Go's `%T` of a value (`<nil>` for nil)."""
    if value is None:
        return "<nil>"
    return next((name for kind, name in _TYPE_NAMES if isinstance(value, kind)), type(value).__name__)


_BASIC_KINDS = {"bool": "bool", "uint8": "uint", "int": "int", "int64": "int", "float64": "float", "string": "string"}


def basic_kind(value: Any) -> str:
    """The basic kind Go's template and JSONPath comparisons go by: bool, int, uint, float, string or invalid."""
    return _BASIC_KINDS.get(type_name(value), "invalid")


def json_marshal(value: Any, indent: str | None = None, *, jsoniter: bool = False) -> str:
    """json.Marshal (compact) or json.MarshalIndent(value, "", indent): sorted keys, HTML-safe.

    `jsoniter` spells strings as json-iterator does (structured-merge-diff's field paths).
    Raises ValueError for NaN and ±Inf and TypeError for values JSON has no form for, as Go refuses them.
    """
    return _marshal(value, indent, jsoniter, 0)


def _marshal(value: Any, indent: str | None, jsoniter: bool, level: int) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"json: unsupported value: {format_float(value)}")
        return json_float(value)
    if isinstance(value, str):
        return json_string(value, jsoniter=jsoniter)
    if isinstance(value, dict):
        separator = ": " if indent is not None else ":"
        parts = [
            json_string(str(key), jsoniter=jsoniter) + separator + _marshal(item, indent, jsoniter, level + 1)
            for key, item in sorted(value.items(), key=lambda kv: str(kv[0]))
        ]
        return _json_block("{", "}", parts, indent, level)
    if isinstance(value, (list, tuple)):
        parts = [_marshal(item, indent, jsoniter, level + 1) for item in value]
        return _json_block("[", "]", parts, indent, level)
    raise TypeError(f"json: unsupported type: {type_name(value)}")


def _json_block(opening: str, closing: str, parts: list[str], indent: str | None, level: int) -> str:
    if not parts:
        return opening + closing
    if indent is None:
        return opening + ",".join(parts) + closing
    inner = "\n" + indent * (level + 1)
    return opening + inner + ("," + inner).join(parts) + "\n" + indent * level + closing


@dataclass
class Spec:
    """One fmt directive's flags, width and precision."""

    minus: bool = False
    plus: bool = False
    sharp: bool = False
    space: bool = False
    zero: bool = False
    width: int | None = None
    precision: int | None = None

    def pad(self, text: str) -> str:
        if self.width is None or len(text) >= self.width:
            return text
        fill = self.width - len(text)
        if self.minus:
            return text + " " * fill
        return ("0" if self.zero else " ") * fill + text


_PLAIN = Spec()


def format_v(value: Any) -> str:
    """`%v` of one value, as fmt.Print shows it."""
    return format_value(value, "v", _PLAIN)


def format_sharp_v(value: Any) -> str:
    """`%#v` of one value (a nil operand prints `<nil>`, a nil inside a container `interface {}(nil)`)."""
    return format_value(value, "v", Spec(sharp=True))


def format_value(value: Any, verb: str, spec: Spec, *, nested: bool = False) -> str:
    """One operand under one verb, as fmt's printArg/printValue format it."""
    sharp_v = verb == "v" and spec.sharp
    if verb == "T":
        return spec.pad(type_name(value))
    if value is None:
        if nested:
            return "interface {}(nil)" if sharp_v else "<nil>"
        return spec.pad("<nil>") if verb == "v" else f"%!{verb}(<nil>)"
    if isinstance(value, bool):
        if verb in "tv":
            return spec.pad("true" if value else "false")
        return _bad_verb(value, verb)
    if isinstance(value, int):
        return _format_integer(value, verb, spec)
    if isinstance(value, float):
        return _format_float(value, verb, spec)
    if isinstance(value, str):
        return _format_string(value, verb, spec)
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: str(kv[0]))
        if sharp_v:
            inner = ", ".join(f"{quote(str(k))}:{format_value(v, verb, spec, nested=True)}" for k, v in items)
            return "map[string]interface {}{" + inner + "}"
        inner = " ".join(
            f"{format_value(k, verb, spec, nested=True)}:{format_value(v, verb, spec, nested=True)}" for k, v in items
        )
        return "map[" + inner + "]"
    if isinstance(value, (list, tuple)):
        if sharp_v:
            return "[]interface {}{" + ", ".join(format_value(v, verb, spec, nested=True) for v in value) + "}"
        return "[" + " ".join(format_value(v, verb, spec, nested=True) for v in value) + "]"
    return spec.pad(str(value))


def _bad_verb(value: Any, verb: str) -> str:
    return f"%!{verb}({type_name(value)}={format_v(value)})"


def _with_sign(digits: str, negative: bool, spec: Spec, prefix: str = "", *, zero_fill: bool = True) -> str:
    """Sign, prefix and digits; a `0` flag fills between sign and digits (integers: only without precision)."""
    sign = "-" if negative else "+" if spec.plus else " " if spec.space else ""
    if spec.zero and zero_fill and not spec.minus and spec.width is not None:
        body = digits.rjust(spec.width - len(sign) - len(prefix), "0")
        return sign + prefix + body
    return Spec(minus=spec.minus, width=spec.width).pad(sign + prefix + digits)


_INTEGER_BASES = {
    "d": (10, ""),
    "v": (10, ""),
    "b": (2, "0b"),
    "o": (8, "0"),
    "O": (8, "0o"),
    "x": (16, "0x"),
    "X": (16, "0X"),
}


def _format_integer(value: int, verb: str, spec: Spec) -> str:
    number = int(value)
    if verb == "v" and spec.sharp:
        return str(number)
    if verb == "c":
        return spec.pad(chr(number) if 0 <= number <= 0x10FFFF else "\ufffd")
    if verb == "q":
        return spec.pad(quote_rune(number, ascii_only=spec.plus))
    if verb == "U":
        text = f"U+{number:04X}"
        if spec.sharp and 0 <= number <= 0x10FFFF and is_print(chr(number)):
            text += f" '{chr(number)}'"
        return spec.pad(text)
    if verb not in _INTEGER_BASES:
        return _bad_verb(value, verb)
    base, prefix = _INTEGER_BASES[verb]
    digits = {10: "{:d}", 2: "{:b}", 8: "{:o}", 16: "{:x}"}[base].format(abs(number))
    if verb == "X":
        digits = digits.upper()
    if spec.precision is not None:
        digits = "" if spec.precision == 0 and number == 0 else digits.rjust(spec.precision, "0")
    if verb == "O" or (spec.sharp and verb in "bxX"):
        return _with_sign(digits, number < 0, spec, prefix, zero_fill=spec.precision is None)
    if spec.sharp and verb == "o" and not digits.startswith("0"):
        digits = "0" + digits
    return _with_sign(digits, number < 0, spec, zero_fill=spec.precision is None)


def _format_float(value: float, verb: str, spec: Spec) -> str:
    if verb not in "veEfFgG":
        return _bad_verb(value, verb)
    precision = -1 if spec.precision is None else spec.precision
    if verb in "eEfF" and spec.precision is None:
        precision = 6
    form = {"v": "g", "F": "f"}.get(verb, verb)
    if not math.isfinite(value):
        return Spec(minus=spec.minus, width=spec.width).pad(format_float(value, form, precision))
    text = format_float(value, form, precision)
    return _with_sign(text.lstrip("-"), text.startswith("-"), spec)


def _format_string(text: str, verb: str, spec: Spec) -> str:
    if verb == "v" and spec.sharp:
        return quote(text)
    if verb in "sv":
        if spec.precision is not None:
            text = text[: spec.precision]
        return spec.pad(text)
    if verb == "q":
        if spec.sharp and can_backquote(text):
            return spec.pad("`" + text + "`")
        return spec.pad(quote(text, ascii_only=spec.plus))
    if verb in "xX":
        data = text.encode()
        if spec.precision is not None:
            data = data[: spec.precision]
        pattern = "{:02x}" if verb == "x" else "{:02X}"
        prefix = ("0x" if verb == "x" else "0X") if spec.sharp else ""
        if spec.space:
            return spec.pad(" ".join(prefix + pattern.format(b) for b in data))
        return spec.pad(prefix + "".join(pattern.format(b) for b in data))
    return _bad_verb(text, verb)
