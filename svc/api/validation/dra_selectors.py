"""CEL device selectors of resource.k8s.io, compiled when a claim or class is written.

Upstream compiles every selector with the DRA compiler (`k8s.io/dynamic-resource-allocation/cel`):
one variable, `device`, whose attribute and capacity maps are bounded by the ResourceSlice limits,
so the cost estimate is finite. A selector must parse, type-check, be boolean (or `dyn`), be at
most 10 KiB and be estimated at no more than one million cost units. An expression already stored
unchanged is not compiled again (upstream's `stored` option), which is what lets a newer, stricter
compiler leave existing objects writable.
"""

from __future__ import annotations

import functools
from typing import Final

from svc.machinery.cel import types
from svc.machinery.cel.checker import check_expression
from svc.machinery.cel.environment import environment
from svc.machinery.cel.estimate import estimate
from svc.machinery.cel.values import CelError
from svc.machinery.field_errors import FieldError, forbidden, invalid, too_long

CEL_SELECTOR_EXPRESSION_MAX_LENGTH: Final = 10 * 1024
CEL_SELECTOR_EXPRESSION_MAX_COST: Final = 1_000_000
DRIVER_NAME_MAX_LENGTH: Final = 63
DEVICE_MAX_DOMAIN_LENGTH: Final = 63
DEVICE_MAX_ID_LENGTH: Final = 32
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH: Final = 64
MAX_ATTRIBUTES_AND_CAPACITIES: Final = 32

_DOMAIN: Final = types.sized(types.STRING, DEVICE_MAX_DOMAIN_LENGTH)
_ID: Final = types.sized(types.STRING, DEVICE_MAX_ID_LENGTH)


def _by_domain(value: types.Type) -> types.Type:
    inner = types.map_of(_ID, value, MAX_ATTRIBUTES_AND_CAPACITIES)
    return types.map_of(_DOMAIN, inner, MAX_ATTRIBUTES_AND_CAPACITIES)


_DEVICE: Final = types.object_type(
    "kubernetes.DRADevice",
    {
        "driver": types.sized(types.STRING, DRIVER_NAME_MAX_LENGTH),
        "attributes": _by_domain(types.sized(types.DYN, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)),
        "capacity": _by_domain(types.DYN),
        "allowMultipleAllocations": types.BOOL,
    },
)
_DECLARATIONS: Final = {"device": _DEVICE}
_ENVIRONMENT: Final = environment(frozenset(_DECLARATIONS))


@functools.lru_cache(maxsize=1024)
def _expression_problem(expression: str) -> tuple[str, str] | None:
    """("invalid" | "forbidden", detail) for a selector that does not pass, None for one that does;
    cached, as a claim template stamps out claims with the same few expressions."""
    try:
        _ENVIRONMENT.compile(expression)
        checked = check_expression(expression, _DECLARATIONS)
    except CelError as err:
        return "invalid", f"compilation failed: {err}"
    if checked.result not in (types.BOOL, types.DYN):
        return "invalid", f"must evaluate to bool or the unknown type, not {checked.result}"
    if estimate(checked) > CEL_SELECTOR_EXPRESSION_MAX_COST:
        return "forbidden", "too complex, exceeds cost limit"
    return None


def selector_expression_errors(expression: str, path: str) -> list[FieldError]:
    """Upstream's `validateCELExpression` for a new (not stored) selector."""
    if len(expression.encode()) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    problem = _expression_problem(expression)
    if problem is None:
        return []
    kind, detail = problem
    return [forbidden(path, detail) if kind == "forbidden" else invalid(path, expression, detail)]
