"""Upstream's `ValidateTolerations`: what a pod (or a runtime class) may say about the taints it tolerates."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from svc.api.validation.engine import items, text
from svc.api.validation.gates import current_pod_options
from svc.machinery.field_errors import FieldError, invalid, not_supported
from svc.machinery.gotext.quoting import quote
from svc.machinery.validation import is_valid_label_value, validate_label_name

_OPERATORS: Final = ("Equal", "Exists")
_WITH_COMPARISONS: Final = ("Equal", "Exists", "Lt", "Gt")
_DECIMAL: Final = re.compile(r"-?(0|[1-9][0-9]*)")
_PARSE_INT: Final = re.compile(r"[+-]?[0-9]+")
_DECIMAL_DETAIL: Final = "must be a valid decimal integer in canonical form"


def _comparison_value_errors(value: str, path: str) -> list[FieldError]:
    """An `Lt`/`Gt` toleration's value: content's `IsDecimalInteger`, then Go's `strconv.ParseInt`
    (whose error text upstream passes on)."""
    errors: list[FieldError] = []
    if not value:
        errors.append(invalid(path, value, "must be non-empty"))
    elif not _DECIMAL.fullmatch(value):
        errors.append(invalid(path, value, _DECIMAL_DETAIL))
    if not _PARSE_INT.fullmatch(value):
        errors.append(invalid(path, value, f"strconv.ParseInt: parsing {quote(value)}: invalid syntax"))
    elif not -(2**63) <= int(value) < 2**63:
        errors.append(invalid(path, value, f"strconv.ParseInt: parsing {quote(value)}: value out of range"))
    return errors


def toleration_errors(tolerations: Any, path: str, *, comparison_operators: bool | None = None) -> list[FieldError]:
    """Upstream's `ValidateTolerations`. The `Lt` and `Gt` operators (TaintTolerationComparisonOperators,
    or the stored pod using them) come from the pod validation options unless `comparison_operators`
    says otherwise (a RuntimeClass passes upstream's empty options: never)."""
    if comparison_operators is None:
        comparison_operators = current_pod_options().allow_taint_toleration_comparison_operators
    errors: list[FieldError] = []
    for index, toleration in enumerate(items(tolerations)):
        if not isinstance(toleration, Mapping):
            continue
        where = f"{path}[{index}]"
        key, operator = text(toleration, "key"), text(toleration, "operator")
        value, effect = text(toleration, "value"), text(toleration, "effect")
        if key:
            errors += validate_label_name(key, f"{where}.key")
        if not key and operator != "Exists":
            detail = 'operator must be Exists when `key` is empty, which means "match all values and all keys"'
            errors.append(invalid(f"{where}.operator", operator, detail))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(
                invalid(f"{where}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set")
            )
        if operator in ("Equal", ""):
            messages = is_valid_label_value(value)
            if messages:
                errors.append(invalid(f"{where}.operator", value, ";".join(messages)))
        elif operator == "Exists":
            if value:
                errors.append(invalid(f"{where}.operator", value, "value must be empty when `operator` is 'Exists'"))
        elif operator in ("Lt", "Gt") and comparison_operators:
            errors += _comparison_value_errors(value, f"{where}.value")
        else:
            # Upstream names the comparison operators too when it refuses them, but not otherwise.
            allowed = _WITH_COMPARISONS if operator in ("Lt", "Gt") else _OPERATORS
            errors.append(not_supported(f"{where}.operator", operator, allowed))
        if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            errors.append(not_supported(f"{where}.effect", effect, ("NoSchedule", "PreferNoSchedule", "NoExecute")))
    return errors
