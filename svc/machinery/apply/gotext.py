"""Go's text renderings of JSON values, where managedFields and conflict messages must match upstream.

Field sets embed JSON inside their keys (`k:{"name":"x"}`, `v:"a"`) and conflict messages print values
the way Go's `fmt` does (`%q`, `%v`). Clients compare these strings byte for byte, so the Go spellings
are reproduced here: HTML-safe escaping and shortest float forms for JSON, `strconv.Quote` for `%q`, and
`strconv.FormatFloat(f, 'g', -1, 64)` for `%v`. Written by hand: orjson and the standard `json` module
escape and format numbers differently, and no maintained package renders Go's `fmt` verbs.
"""

from __future__ import annotations

import decimal
from typing import Any

_JSON_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_UNSAFE = frozenset("<>&\u2028\u2029")
_QUOTE_SHORT = {
    '"': '\\"',
    "\\": "\\\\",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def json_string(text: str) -> str:
    """A JSON string literal as Go's encoding/json writes it (HTML characters escaped)."""
    out = ['"']
    for char in text:
        if char in _JSON_SHORT:
            out.append(_JSON_SHORT[char])
        elif char < " " or char in _JSON_UNSAFE:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def json_value(value: Any) -> str:
    """Compact JSON with sorted object keys, as Go marshals an unstructured value."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _json_float(value)
    if isinstance(value, str):
        return json_string(value)
    if isinstance(value, list):
        return "[" + ",".join(json_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = sorted(value.items())
        return "{" + ",".join(f"{json_string(key)}:{json_value(item)}" for key, item in items) + "}"
    raise TypeError(f"unsupported JSON value of type {type(value).__name__}")


def quote(text: str) -> str:
    """Go's `%q` (strconv.Quote): printable characters verbatim, the rest escaped."""
    out = ['"']
    for char in text:
        if char in _QUOTE_SHORT:
            out.append(_QUOTE_SHORT[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    out.append('"')
    return "".join(out)


def format_float_g(number: float) -> str:
    """Go's `%v` of a float64: shortest digits, exponent form outside 1e-4 <= |x| < 1e6."""
    if number != number:
        return "NaN"
    if number in (float("inf"), float("-inf")):
        return "+Inf" if number > 0 else "-Inf"
    digits, point = _shortest_digits(number)
    if digits == "0":
        return "-0" if str(number).startswith("-") else "0"
    sign = "-" if number < 0 else ""
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        return sign + _exponent_form(digits, exponent)
    return sign + _fixed_form(digits, point)


def _json_float(number: float) -> str:
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"unsupported float value: {number!r}")
    digits, point = _shortest_digits(number)
    if digits == "0":
        return "-0" if str(number).startswith("-") else "0"
    sign = "-" if number < 0 else ""
    if abs(number) < 1e-6 or abs(number) >= 1e21:
        return sign + _exponent_form(digits, point - 1).replace("e-0", "e-")
    return sign + _fixed_form(digits, point)


def _shortest_digits(number: float) -> tuple[str, int]:
    """The shortest round-trip digits and the decimal point position (value = 0.DIGITS * 10**point)."""
    parsed = decimal.Decimal(repr(abs(number))).normalize()
    _, digit_tuple, exponent = parsed.as_tuple()
    digits = "".join(map(str, digit_tuple))
    if not digits.strip("0") or not isinstance(exponent, int):
        return "0", 1
    return digits, len(digits) + exponent


def _fixed_form(digits: str, point: int) -> str:
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


def _exponent_form(digits: str, exponent: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    sign = "-" if exponent < 0 else "+"
    return f"{mantissa}e{sign}{abs(exponent):02d}"


def type_name(value: Any) -> str:
    """Go's `%T` of a decoded JSON value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    return "map[string]interface {}"


def format_v(value: Any) -> str:
    """Go's `%v` of a decoded JSON value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_float_g(value)
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, list):
        return "[" + " ".join(format_v(item) for item in value) + "]"
    return "map[" + " ".join(f"{key}:{format_v(item)}" for key, item in sorted(value.items())) + "]"


def format_sharp_v(value: Any) -> str:
    """Go's `%#v` of a decoded JSON value."""
    if value is None:
        return "interface {}(nil)"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(format_sharp_v(item) for item in value) + "}"
    if isinstance(value, dict):
        items = ", ".join(f"{quote(key)}:{format_sharp_v(item)}" for key, item in sorted(value.items()))
        return "map[string]interface {}{" + items + "}"
    return format_v(value)
