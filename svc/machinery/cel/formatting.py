"""`<string>.format(<list>)` from the strings extension: `%s %d %f %e %b %o %x %X %%`, with an
optional precision for `%f`/`%e`, formatted as cel-go does (`NaN`, `Infinity`, sorted maps)."""

from __future__ import annotations

import math
import re
from typing import Any, Final

from svc.machinery.cel.conversions import format_double, format_duration, format_timestamp
from svc.machinery.cel.values import LISTS, CelError, CelType, Duration, NoSuchOverload, Timestamp, Uint, map_items

_CLAUSE: Final = re.compile(r"%(?:\.(\d+))?([a-zA-Z%])?")


def _special(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return None


def as_string(value: Any) -> str:
    """The `%s` form of any value."""
    kind = type(value)
    if kind is str:
        return value
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int or kind is Uint:
        return str(int(value))
    if kind is float:
        return _special(value) or format_double(value)
    if kind is bytes:
        return value.decode("utf-8", errors="replace")
    if kind is Timestamp:
        return format_timestamp(value)
    if kind is Duration:
        return format_duration(value)
    if kind is CelType:
        return value.name
    if kind in LISTS:
        return "[" + ", ".join(as_string(v) for v in value) + "]"
    if kind is dict:
        entries = sorted((as_string(k), as_string(v)) for k, v in map_items(value))
        return "{" + ", ".join(f"{k}: {v}" for k, v in entries) + "}"
    stringify = getattr(value, "cel_string", None)
    if stringify is not None:
        return stringify()
    raise CelError(f"error during formatting: no formatting available for {kind.__name__}")


def _number(value: Any, clause: str) -> float:
    if type(value) in (int, Uint, float):
        return float(value)
    raise CelError(f"error during formatting: fixed-point clause can only be used on doubles, was given {value!r}")


def _integer(value: Any, clause: str, base: str) -> str:
    kind = type(value)
    if kind is bool and clause == "b":
        return "1" if value else "0"
    if kind is float and clause == "d":
        special = _special(value)
        if special is not None:
            return special
    if kind is int or kind is Uint:
        sign = "-" if value < 0 else ""
        return sign + format(abs(int(value)), base)
    if clause in "xX" and kind in (str, bytes):
        data = value.encode() if kind is str else value
        return data.hex() if clause == "x" else data.hex().upper()
    raise CelError(f"error during formatting: integer clause can only be used on integers, was given {value!r}")


def _clause(clause: str, precision: str | None, value: Any) -> str:
    if clause == "s":
        return as_string(value)
    if clause in "fe":
        number = _number(value, clause)
        special = _special(number)
        if special is not None:
            return special
        digits = 6 if precision is None else int(precision)
        return f"{number:.{digits}{clause}}"
    if clause == "d":
        return _integer(value, clause, "d")
    if clause == "b":
        return _integer(value, clause, "b")
    if clause == "o":
        return _integer(value, clause, "o")
    if clause == "x":
        return _integer(value, clause, "x")
    if clause == "X":
        return _integer(value, clause, "X")
    raise CelError(f'could not parse formatting clause: unrecognized formatting clause "{clause}"')


def format_string(template: Any, args: Any) -> str:
    if type(template) is not str or type(args) not in LISTS:
        raise NoSuchOverload("format")
    out: list[str] = []
    position = 0
    used = 0
    for match in _CLAUSE.finditer(template):
        out.append(template[position : match.start()])
        position = match.end()
        precision, clause = match.groups()
        if clause == "%":
            out.append("%")
            continue
        if clause is None:
            raise CelError("could not parse formatting clause: unexpected end of string")
        if used >= len(args):
            raise CelError(f"index {used} out of range")
        out.append(_clause(clause, precision, args[used]))
        used += 1
    out.append(template[position:])
    return "".join(out)
