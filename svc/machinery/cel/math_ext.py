"""The math extension (cel-go `ext.Math`): `math.greatest`/`least`, rounding, classification,
`abs`, `sign` and the bit operations, on CEL's int, uint and double."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.operators import NUMBERS, compare
from svc.machinery.cel.values import LISTS, CelError, NoSuchOverload, Uint, check_int

Function = Callable[..., Any]


def _numbers(function: str, args: tuple[Any, ...]) -> list[Any]:
    values = list(args[0]) if len(args) == 1 and type(args[0]) in LISTS else list(args)
    if not values:
        raise CelError(f"{function}(list) argument must not be empty")
    if any(type(v) not in NUMBERS for v in values):
        raise NoSuchOverload(function)
    return values


def greatest(*args: Any) -> Any:
    values = _numbers("math.@max", args)
    best = values[0]
    for value in values[1:]:
        if compare(value, best) > 0:
            best = value
    return best


def least(*args: Any) -> Any:
    values = _numbers("math.@min", args)
    best = values[0]
    for value in values[1:]:
        if compare(value, best) < 0:
            best = value
    return best


def _double_fn(name: str, fn: Callable[[float], Any]) -> Function:
    def apply(value: Any) -> Any:
        if type(value) is not float:
            raise NoSuchOverload(name)
        return fn(value)

    return apply


def _abs(value: Any) -> Any:
    if type(value) is int:
        return check_int(abs(value))
    if type(value) is Uint:
        return value
    if type(value) is float:
        return abs(value)
    raise NoSuchOverload("math.abs")


def _sign(value: Any) -> Any:
    if type(value) in (int, Uint):
        return type(value)((value > 0) - (value < 0))
    if type(value) is float:
        return value if math.isnan(value) or value == 0 else math.copysign(1.0, value)
    raise NoSuchOverload("math.sign")


def _round(value: float) -> float:
    if math.isnan(value) or math.isinf(value):
        return value
    return math.copysign(math.floor(abs(value) + 0.5), value)


def _trunc(value: float) -> float:
    return value if math.isnan(value) or math.isinf(value) else float(math.trunc(value))


def _bits(name: str, fn: Callable[[int, int], int]) -> Function:
    def apply(a: Any, b: Any) -> Any:
        if type(a) is type(b) and type(a) in (int, Uint):
            result = fn(a, b)
            return Uint(result & ((1 << 64) - 1)) if type(a) is Uint else _wrap_int(result)
        raise NoSuchOverload(name)

    return apply


def _wrap_int(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _bit_not(value: Any) -> Any:
    if type(value) is int:
        return ~value
    if type(value) is Uint:
        return Uint(~value & ((1 << 64) - 1))
    raise NoSuchOverload("math.bitNot")


def _shift(name: str, left: bool) -> Function:
    def apply(value: Any, bits: Any) -> Any:
        if type(value) not in (int, Uint) or type(bits) is not int:
            raise NoSuchOverload(name)
        if bits < 0:
            raise CelError(f"math.{name}() negative offset: {bits}")
        if bits >= 64:
            return type(value)(0)
        if left:
            return _wrap_int(value << bits) if type(value) is int else Uint((value << bits) & ((1 << 64) - 1))
        if type(value) is int:
            return _wrap_int((value & ((1 << 64) - 1)) >> bits)
        return Uint(value >> bits)

    return apply


FUNCTIONS: Final[dict[str, Function]] = {
    "math.greatest": greatest,
    "math.least": least,
    "math.ceil": _double_fn("math.ceil", lambda v: v if math.isinf(v) or math.isnan(v) else float(math.ceil(v))),
    "math.floor": _double_fn("math.floor", lambda v: v if math.isinf(v) or math.isnan(v) else float(math.floor(v))),
    "math.round": _double_fn("math.round", _round),
    "math.trunc": _double_fn("math.trunc", _trunc),
    "math.isInf": _double_fn("math.isInf", math.isinf),
    "math.isNaN": _double_fn("math.isNaN", math.isnan),
    "math.isFinite": _double_fn("math.isFinite", math.isfinite),
    "math.abs": _abs,
    "math.sign": _sign,
    "math.bitAnd": _bits("math.bitAnd", lambda a, b: a & b),
    "math.bitOr": _bits("math.bitOr", lambda a, b: a | b),
    "math.bitXor": _bits("math.bitXor", lambda a, b: a ^ b),
    "math.bitNot": _bit_not,
    "math.bitShiftLeft": _shift("bitShiftLeft", left=True),
    "math.bitShiftRight": _shift("bitShiftRight", left=False),
}
