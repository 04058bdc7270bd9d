"""strconv's texts for floats and booleans, and encoding/json's float form.

Go prints floats in forms Python never picks (`1e+06`, `1e-05`, `-0`, `1e-7` in JSON) and accepts its own
set of boolean spellings; clients and messages show these texts, so the rules are written here by hand
(no maintained library reproduces strconv).
"""

from __future__ import annotations

import math

from svc.machinery.gotext.quoting import quote

_TRUE = frozenset(("1", "t", "T", "true", "TRUE", "True"))
_FALSE = frozenset(("0", "f", "F", "false", "FALSE", "False"))


def parse_bool(text: str) -> bool:
    """strconv.ParseBool: Go's flags take exactly these spellings, so `yes` or `tRUE` fail as upstream."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"strconv.ParseBool: parsing {quote(text)}: invalid syntax")


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


def _rounded_digits(value: float, significant: int) -> tuple[str, int]:
    text = f"{abs(value):.{significant - 1}e}"
    mantissa, _, exponent = text.partition("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    return digits, int(exponent) + 1 if digits != "0" else 1


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
    """strconv.FormatFloat(value, verb, precision, 64) for verbs e, E, f, g, G; the defaults give `%v`."""
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


def json_float(value: float) -> str:
    """encoding/json's text for a float64: plain decimal unless tiny or huge.

    NaN and ±Inf, which encoding/json refuses, come back in strconv's spelling for callers that print them.
    """
    magnitude = abs(value)
    if not math.isfinite(value) or magnitude == 0 or 1e-6 <= magnitude < 1e21:
        return format_float(value, "f")
    mantissa, _, exponent = format_float(value, "e").partition("e")
    return f"{mantissa}e{exponent[0]}{int(exponent[1:])}"
