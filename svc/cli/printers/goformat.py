"""How Go prints JSON-decoded values: fmt verbs, strconv float and quote forms, encoding/json.

kubectl's JSONPath and Go-template printers show values through Go's fmt and encoding/json, so
their output (`map[a:1 b:2]`, `1e+06`, `"x\\u003cy"`, `%!d(string=x)`) only matches if we print the
same way. No Python library reproduces Go's formatting rules, so they are written here by hand.

Value model (what kubectl's decoders produce): dict = map[string]interface {}, list = []interface {},
str = string, bool = bool, int = int64, float = float64, None = nil; `GoInt` marks Go's `int`
(template literals, `len`), `GoByte` a `uint8` taken out of a string.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class GoInt(int):
    """A Go `int` (not `int64`): only its type name differs."""


class GoByte(int):
    """A Go `uint8`, as indexing a string yields."""


def type_name(value: Any) -> str:
    """Go's `%T` of a value (`<nil>` for nil)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, GoInt):
        return "int"
    if isinstance(value, GoByte):
        return "uint8"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    return type(value).__name__


# --- strconv: floats -------------------------------------------------------------------------


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest round-tripping digits of |value| and the decimal point position (Go's digs.dp)."""
    text = repr(abs(value))
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + (int(exponent) if exponent else 0)
    point -= len(whole + fraction) - len((whole + fraction).lstrip("0"))
    digits = digits.rstrip("0")
    if not digits:
        return "0", 1
    return digits, point


def _exp_form(digits: str, point: int, precision: int, letter: str) -> str:
    mantissa = digits[0]
    rest = digits[1 : precision + 1].ljust(precision, "0") if precision > 0 else ""
    if rest:
        mantissa += "." + rest
    exponent = point - 1 if digits != "0" else 0
    sign = "-" if exponent < 0 else "+"
    return f"{mantissa}{letter}{sign}{abs(exponent):02d}"


def _fixed_form(digits: str, point: int, precision: int) -> str:
    if point <= 0:
        whole = "0"
        fraction = "0" * -point + digits
    else:
        whole = digits[:point].ljust(point, "0")
        fraction = digits[point:]
    fraction = fraction[:precision].ljust(precision, "0")
    return whole + ("." + fraction if precision > 0 else "")


def format_float(value: float, verb: str = "g", precision: int = -1) -> str:
    """strconv.FormatFloat(value, verb, precision, 64) for verbs e, E, f, g, G."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    lower = verb.lower()
    if precision >= 0 and lower in "ef":
        text = f"{abs(value):.{precision}{lower}}"
        if lower == "e":
            mantissa, _, exponent = text.partition("e")
            text = f"{mantissa}e{exponent[0]}{int(exponent[1:]):02d}"
        return sign + (text.upper() if verb == "E" else text)
    if precision >= 0:
        digits, point = _rounded_digits(value, max(precision, 1))
    else:
        digits, point = _shortest_digits(value)
    if lower == "e":
        return sign + _exp_form(digits, point, len(digits) - 1, verb)
    if lower == "f":
        return sign + _fixed_form(digits, point, max(len(digits) - point, 0))
    limit = 6 if precision < 0 else max(precision, 1)
    if precision >= 0 and limit > len(digits) and len(digits) >= point:
        limit = len(digits)
    exponent = point - 1
    if exponent < -4 or exponent >= limit:
        return sign + _exp_form(digits, point, len(digits) - 1, "e" if verb == "g" else "E")
    return sign + _fixed_form(digits, point, max(len(digits) - point, 0))


def _rounded_digits(value: float, significant: int) -> tuple[str, int]:
    text = f"{abs(value):.{significant - 1}e}"
    mantissa, _, exponent = text.partition("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    return digits, int(exponent) + 1 if digits != "0" else 1


# --- strconv: quoting ------------------------------------------------------------------------

_SHORT_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def is_print(char: str) -> bool:
    """Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space."""
    return char == " " or unicodedata.category(char)[0] in "LMNPS"


def _escape_rune(char: str, quote: str, ascii_only: bool) -> str:
    if char in (quote, "\\"):
        return "\\" + char
    if is_print(char) and not (ascii_only and ord(char) > 0x7E):
        return char
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        code = 0xFFFD
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def quote(text: str, *, ascii_only: bool = False) -> str:
    """strconv.Quote (or QuoteToASCII)."""
    return '"' + "".join(_escape_rune(c, '"', ascii_only) for c in text) + '"'


def quote_rune(code: int, *, ascii_only: bool = False) -> str:
    """strconv.QuoteRune."""
    char = chr(code) if 0 <= code <= 0x10FFFF else "\ufffd"
    return "'" + _escape_rune(char, "'", ascii_only) + "'"


def _can_backquote(text: str) -> bool:
    return all(c != "`" and c != "\ufeff" and (c == "\t" or is_print(c)) for c in text)


# --- encoding/json ---------------------------------------------------------------------------

_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_JSON_HTML = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _json_string(text: str) -> str:
    out = []
    for char in text:
        if char in _JSON_ESCAPES:
            out.append(_JSON_ESCAPES[char])
        elif char in _JSON_HTML:
            out.append(_JSON_HTML[char])
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04x}")
        elif 0xD800 <= ord(char) <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def json_float(value: float) -> str:
    """encoding/json's text for a float64: plain decimal unless tiny or huge."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        text = format_float(value, "e")
        mantissa, _, exponent = text.partition("e")
        return f"{mantissa}e{exponent[0]}{int(exponent[1:])}"
    return format_float(value, "f")


def json_marshal(value: Any, indent: str | None = None, _level: int = 0) -> str:
    """json.Marshal (compact) or json.MarshalIndent(value, "", indent): sorted keys, HTML-safe."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return json_float(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        items = [(_json_string(str(k)), v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
        parts = [f"{k}:{' ' if indent is not None else ''}{json_marshal(v, indent, _level + 1)}" for k, v in items]
        return _json_block("{", "}", parts, indent, _level)
    if isinstance(value, (list, tuple)):
        parts = [json_marshal(v, indent, _level + 1) for v in value]
        return _json_block("[", "]", parts, indent, _level)
    raise TypeError(f"json: unsupported type: {type_name(value)}")


def _json_block(opening: str, closing: str, parts: list[str], indent: str | None, level: int) -> str:
    if not parts:
        return opening + closing
    if indent is None:
        return opening + ",".join(parts) + closing
    inner = "\n" + indent * (level + 1)
    return opening + inner + ("," + inner).join(parts) + "\n" + indent * level + closing


# --- fmt -------------------------------------------------------------------------------------


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


def sprint_value(value: Any) -> str:
    """`%v` of one value, as fmt.Print shows it."""
    return format_value(value, "v", _PLAIN)


def go_syntax(value: Any) -> str:
    """`%#v` of one value."""
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
    return f"%!{verb}({type_name(value)}={sprint_value(value)})"


def _with_sign(digits: str, negative: bool, spec: Spec, prefix: str = "", *, zero_fill: bool = True) -> str:
    """Sign, prefix and digits; a `0` flag fills between sign and digits (integers: only without precision)."""
    sign = "-" if negative else "+" if spec.plus else " " if spec.space else ""
    if spec.zero and zero_fill and not spec.minus and spec.width is not None:
        body = digits.rjust(spec.width - len(sign) - len(prefix), "0")
        return sign + prefix + body
    return Spec(minus=spec.minus, width=spec.width).pad(sign + prefix + digits)


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
    bases = {
        "d": (10, ""),
        "v": (10, ""),
        "b": (2, "0b"),
        "o": (8, "0"),
        "O": (8, "0o"),
        "x": (16, "0x"),
        "X": (16, "0X"),
    }
    if verb not in bases:
        return _bad_verb(value, verb)
    base, prefix = bases[verb]
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
        if spec.sharp and _can_backquote(text):
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


def sprintf(template: str, args: Sequence[Any]) -> str:
    """fmt.Sprintf for the verbs that make sense on JSON values (no `*` widths or `[n]` indexes)."""
    out: list[str] = []
    position = 0
    used = 0
    length = len(template)
    while position < length:
        char = template[position]
        if char != "%":
            out.append(char)
            position += 1
            continue
        position += 1
        spec = Spec()
        while position < length and template[position] in "-+# 0":
            flag = template[position]
            spec.minus |= flag == "-"
            spec.plus |= flag == "+"
            spec.sharp |= flag == "#"
            spec.space |= flag == " "
            spec.zero |= flag == "0"
            position += 1
        start = position
        while position < length and template[position].isdigit():
            position += 1
        if position > start:
            spec.width = int(template[start:position])
        if position < length and template[position] == ".":
            position += 1
            start = position
            while position < length and template[position].isdigit():
                position += 1
            spec.precision = int(template[start:position] or "0")
        if position >= length:
            out.append("%!(NOVERB)")
            break
        verb = template[position]
        position += 1
        if verb == "%":
            out.append("%")
            continue
        if used >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        spec.zero = spec.zero and not spec.minus
        out.append(format_value(args[used], verb, spec))
        used += 1
    if used < len(args):
        extra = ", ".join(_bad_extra(arg) for arg in args[used:])
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)


def _bad_extra(value: Any) -> str:
    return "<nil>" if value is None else f"{type_name(value)}={sprint_value(value)}"


def sprint(args: Sequence[Any]) -> str:
    """fmt.Sprint: operands side by side, a space between two that are both not strings."""
    out: list[str] = []
    for index, arg in enumerate(args):
        if index > 0 and not isinstance(arg, str) and not isinstance(args[index - 1], str):
            out.append(" ")
        out.append(sprint_value(arg))
    return "".join(out)


def sprintln(args: Sequence[Any]) -> str:
    """fmt.Sprintln: operands separated by spaces, then a newline."""
    return " ".join(sprint_value(arg) for arg in args) + "\n"
