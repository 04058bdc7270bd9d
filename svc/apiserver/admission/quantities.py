"""Resource lists (`{"cpu": "100m", ...}`) as quantities, for the plugins that compare and add them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from svc.machinery.quantity import Quantity, quantity_or_none


def resource_list(values: Mapping[str, Any] | None) -> dict[str, Quantity]:
    parsed = {name: quantity_or_none(text) for name, text in (values or {}).items()}
    return {name: value for name, value in parsed.items() if value is not None}


def add(first: Quantity | None, second: Quantity | None) -> Quantity | None:
    if first is None:
        return second
    if second is None:
        return first
    return Quantity(first.value + second.value, first.format)


def total(values: Iterable[Quantity]) -> Quantity:
    result = Quantity(Decimal(0))
    for value in values:
        result = Quantity(result.value + value.value, value.format)
    return result
