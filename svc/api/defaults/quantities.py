"""Resource lists (`requests`, `limits`, `hard`, `capacity`, ...): upstream's SetDefaults_ResourceList.

Upstream rounds every quantity of a resource list up to a whole milli-unit (`100u` becomes `1m`) and,
like every quantity it decodes, writes it back in canonical form (`0.5` becomes `500m`). The parsing
and canonical form are `svc.machinery.quantity`'s; text that is not a quantity is left for validation.
"""

from __future__ import annotations

import functools
from decimal import ROUND_UP, Context, Decimal
from typing import Any, Final

from svc.api.defaults.walk import Obj, child
from svc.machinery.quantity import Quantity, QuantityError, parse_quantity

_MILLI: Final = Decimal("0.001")


def as_quantity(value: Any) -> Quantity | None:
    """A JSON quantity (upstream also accepts a bare number) or None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        return parse_quantity(value if isinstance(value, str) else repr(value))
    except QuantityError:
        return None


def rounded(quantity: Quantity) -> Quantity:
    """The quantity rounded up in magnitude to a multiple of 10^-3; untouched when already one. The
    digits kept grow with the magnitude (decimal's default 28 cannot hold `1e308` to the milli-unit)."""
    digits = max(28, quantity.value.adjusted() + 5)
    value = quantity.value.quantize(_MILLI, rounding=ROUND_UP, context=Context(prec=digits))
    return quantity if value == quantity.value else Quantity(value, quantity.format)


def round_resource_list(obj: Obj | None, key: str) -> None:
    """Round and canonicalise the resource list at `key` in place."""
    values = child(obj, key)
    if values is None:
        return
    for name, value in list(values.items()):
        canonical = _rounded_text(value) if isinstance(value, str) else _rounded_value(value)
        if canonical is not None:
            values[name] = canonical


def _rounded_value(value: Any) -> str | None:
    quantity = as_quantity(value)
    return None if quantity is None else rounded(quantity).canonical()


# Every write of a pod template rounds every container's quantities, and they repeat ("100m", "64Mi").
_rounded_text = functools.lru_cache(maxsize=4096)(_rounded_value)


def round_requirements(obj: Obj | None, key: str = "resources") -> None:
    """Round the `limits` and `requests` of the resource requirements at `key`."""
    requirements = child(obj, key)
    round_resource_list(requirements, "limits")
    round_resource_list(requirements, "requests")
