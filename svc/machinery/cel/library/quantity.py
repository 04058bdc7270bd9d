"""The `quantity` library over the server's own quantity parser (`svc.machinery.quantity`)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final

from svc.machinery.cel.values import INT_MAX, INT_MIN, CelError, CelType, NoSuchOverload, register_type
from svc.machinery.quantity import Quantity, QuantityError, parse_quantity

QUANTITY_TYPE: Final = CelType("kubernetes.Quantity")
register_type(Quantity, QUANTITY_TYPE)


def to_quantity(text: Any) -> Quantity:
    if type(text) is not str:
        raise NoSuchOverload("quantity")
    try:
        return parse_quantity(text)
    except QuantityError as err:
        raise CelError(str(err)) from err


def is_quantity(text: Any) -> bool:
    if type(text) is not str:
        raise NoSuchOverload("isQuantity")
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def _quantity(name: str, value: Any) -> Quantity:
    if type(value) is not Quantity:
        raise NoSuchOverload(name)
    return value


def _operand(name: str, value: Any) -> Decimal:
    if type(value) is Quantity:
        return value.value
    if type(value) is int:
        return Decimal(value)
    raise NoSuchOverload(name)


def _result(value: Decimal, like: Quantity) -> Quantity:
    return Quantity(value, like.format)


def sign(value: Any) -> int:
    amount = _quantity("sign", value).value
    return (amount > 0) - (amount < 0)


def is_integer(value: Any) -> bool:
    amount = _quantity("isInteger", value).value
    return amount == amount.to_integral_value() and INT_MIN <= amount <= INT_MAX


def as_integer(value: Any) -> int:
    if not is_integer(value):
        raise CelError("cannot convert value to integer")
    return int(value.value)


def as_approximate_float(value: Any) -> float:
    return float(_quantity("asApproximateFloat", value).value)


def compare_to(value: Any, other: Any) -> int:
    a, b = _quantity("compareTo", value).value, _quantity("compareTo", other).value
    return (a > b) - (a < b)


def add(value: Any, other: Any) -> Quantity:
    return _result(_quantity("add", value).value + _operand("add", other), value)


def sub(value: Any, other: Any) -> Quantity:
    return _result(_quantity("sub", value).value - _operand("sub", other), value)


def mul(value: Any, factor: Any) -> Quantity:
    if type(factor) is not int:
        raise NoSuchOverload("mul")
    return _result(_quantity("mul", value).value * factor, value)


def div(value: Any, divisor: Any, digits: Any = 4) -> Quantity:
    quantity = _quantity("div", value)
    if type(divisor) is not int or type(digits) is not int:
        raise NoSuchOverload("div")
    if divisor == 0:
        raise CelError("division by zero error")
    if not 0 <= digits <= 10:
        raise CelError(f"the valid range for roundVal is 0 to 10 but {digits} was passed")
    exact = quantity.value / divisor
    return _result(exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP), quantity)


def div_int(value: Any, divisor: Any) -> Quantity:
    quantity = _quantity("divInt", value)
    if type(divisor) is not int:
        raise NoSuchOverload("divInt")
    if divisor == 0:
        raise CelError("division by zero error")
    return _result(Decimal(int(quantity.value / divisor)), quantity)


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "quantity": to_quantity,
    "isQuantity": is_quantity,
    "sign": sign,
    "isGreaterThan": lambda a, b: compare_to(a, b) > 0,
    "isLessThan": lambda a, b: compare_to(a, b) < 0,
    "compareTo": compare_to,
    "isInteger": is_integer,
    "asInteger": as_integer,
    "asApproximateFloat": as_approximate_float,
    "add": add,
    "sub": sub,
    "mul": mul,
    "div": div,
    "divInt": div_int,
}
