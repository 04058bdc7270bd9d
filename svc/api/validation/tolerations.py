"""Upstream's `ValidateTolerations`: what a pod (or a runtime class) may say about the taints it tolerates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from svc.api.validation.engine import items, text
from svc.machinery.field_errors import FieldError, invalid, not_supported
from svc.machinery.validation import is_valid_label_value, validate_label_name


def toleration_errors(tolerations: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidateTolerations`."""
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
        else:
            errors.append(not_supported(f"{where}.operator", operator, ("Equal", "Exists")))
        if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            errors.append(not_supported(f"{where}.effect", effect, ("NoSchedule", "PreferNoSchedule", "NoExecute")))
    return errors
