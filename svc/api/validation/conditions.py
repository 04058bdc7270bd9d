"""`metav1.Condition` lists, as upstream's `ValidateConditions`: unique types, each a label-like name
with a known status, a transition time, a reason of upstream's format and bounded text."""

from __future__ import annotations

import re
from typing import Any, Final

from svc.api.validation.engine import items, lookup, text
from svc.machinery.field_errors import FieldError, duplicate, invalid, not_supported, required, too_long
from svc.machinery.validation import regex_error, validate_label_name

STATUSES: Final = ("False", "True", "Unknown")
_REASON_FORMAT: Final = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_REASON: Final = re.compile(_REASON_FORMAT)
_REASON_MESSAGE: Final = (
    "a condition reason must start with alphabetic character, optionally followed by a string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
)
_REASON_EXAMPLES: Final = ("my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")
_MAX_REASON: Final = 1024
_MAX_MESSAGE: Final = 32 * 1024


def _condition(condition: Any, path: str) -> list[FieldError]:
    errors = validate_label_name(text(condition, "type"), f"{path}.type")
    status = text(condition, "status")
    if status not in STATUSES:
        errors.append(not_supported(f"{path}.status", status, STATUSES))
    generation = lookup(condition, "observedGeneration")
    if isinstance(generation, int) and generation < 0:
        errors.append(invalid(f"{path}.observedGeneration", generation, "must be greater than or equal to zero"))
    if not lookup(condition, "lastTransitionTime"):
        errors.append(required(f"{path}.lastTransitionTime", "must be set"))
    reason = text(condition, "reason")
    if not reason:
        errors.append(required(f"{path}.reason", "must be set"))
    else:
        if not _REASON.fullmatch(reason):
            errors.append(
                invalid(f"{path}.reason", reason, regex_error(_REASON_MESSAGE, _REASON_FORMAT, *_REASON_EXAMPLES))
            )
        if len(reason.encode()) > _MAX_REASON:
            errors.append(too_long(f"{path}.reason", _MAX_REASON))
    if len(text(condition, "message").encode()) > _MAX_MESSAGE:
        errors.append(too_long(f"{path}.message", _MAX_MESSAGE))
    return errors


def conditions_errors(conditions: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, condition in enumerate(items(conditions)):
        kind = text(condition, "type")
        if kind in seen:
            errors.append(duplicate(f"{path}[{index}].type", kind))
        seen.add(kind)
        errors += _condition(condition, f"{path}[{index}]")
    return errors
