"""Field-level validation errors, worded and rendered exactly as upstream's `field.Error`.

Clients see these texts twice: joined into the 422 message (`Pod "x" is invalid: [a, b]`) and one per
entry in `details.causes`, whose `reason` kubectl and client libraries branch on. The offending value is
printed the way Go prints the value upstream would hold: `%q` for strings, `%v` for numbers and booleans,
JSON for everything else (lists, maps, nil). A value that upstream holds as a Go struct (whose JSON keeps
the struct's field order, not sorted keys) is passed already rendered, as `Rendered`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from svc.machinery.gotext import format_float, json_marshal, quote


class ErrorType(StrEnum):
    """The machine-readable kind of a field error; also the StatusCause `reason`."""

    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    NOT_FOUND = "FieldValueNotFound"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"
    TOO_MANY = "FieldValueTooMany"
    TYPE_INVALID = "FieldValueTypeInvalid"


_TITLES: Final = {
    ErrorType.REQUIRED: "Required value",
    ErrorType.DUPLICATE: "Duplicate value",
    ErrorType.NOT_FOUND: "Not found",
    ErrorType.INVALID: "Invalid value",
    ErrorType.NOT_SUPPORTED: "Unsupported value",
    ErrorType.FORBIDDEN: "Forbidden",
    ErrorType.TOO_LONG: "Too long",
    ErrorType.TOO_MANY: "Too many",
    ErrorType.TYPE_INVALID: "Invalid value",
}

# Kinds whose text never shows the value.
_VALUELESS: Final = frozenset({ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG})


class _Omitted:
    def __repr__(self) -> str:
        return "OMITTED"


OMITTED: Final = _Omitted()
"""A bad value left out of the text on purpose (upstream's `omitValue`)."""


@dataclass(frozen=True)
class Rendered:
    """A bad value already written the way upstream prints it (the JSON of a Go struct, say)."""

    text: str


@dataclass(frozen=True)
class FieldError:
    type: ErrorType
    field: str
    bad_value: Any
    detail: str = ""

    @property
    def reason(self) -> str:
        return self.type.value

    def body(self) -> str:
        """The text without the field path, as upstream's `ErrorBody` (the cause's message)."""
        title = _TITLES[self.type]
        if self.type in _VALUELESS or self.bad_value is OMITTED:
            text = title
        else:
            text = f"{title}: {render_value(self.bad_value)}"
        return f"{text}: {self.detail}" if self.detail else text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"

    def cause(self) -> dict[str, str]:
        """The `details.causes` entry upstream builds for this error (empty members left out)."""
        cause = {"reason": self.reason, "message": self.body()}
        if self.field:
            cause["field"] = self.field
        return cause


def render_value(value: Any) -> str:
    """A bad value as upstream's error text prints it."""
    if isinstance(value, Rendered):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, str):
        return quote(value)
    return json_marshal(_plain(value))


def _plain(value: Any) -> Any:
    """The value with tuples and sets as lists and unknown objects as their text, so JSON can print it."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, set | frozenset):
        return sorted(_plain(item) for item in value)
    return str(value)


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError(ErrorType.INVALID, path, value, detail)


def type_invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError(ErrorType.TYPE_INVALID, path, value, detail)


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(ErrorType.REQUIRED, path, "", detail)


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError(ErrorType.DUPLICATE, path, value)


def not_found(path: str, value: Any) -> FieldError:
    return FieldError(ErrorType.NOT_FOUND, path, value)


def not_supported(path: str, value: Any, valid_values: Iterable[str]) -> FieldError:
    quoted = [quote(str(item)) for item in valid_values]
    detail = "supported values: " + ", ".join(quoted) if quoted else ""
    return FieldError(ErrorType.NOT_SUPPORTED, path, value, detail)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(ErrorType.FORBIDDEN, path, "", detail)


def too_long(path: str, max_length: int) -> FieldError:
    """The value (never shown) is longer than `max_length` bytes; a negative limit is not stated."""
    if max_length < 0:
        detail = "value is too long"
    else:
        detail = f"may not be more than {max_length} {'byte' if max_length == 1 else 'bytes'}"
    return FieldError(ErrorType.TOO_LONG, path, "<value omitted>", detail)


def too_many(path: str, actual: int, max_quantity: int) -> FieldError:
    """A list holds `actual` items (omitted from the text when negative), more than `max_quantity`."""
    if max_quantity < 0:
        detail = "has too many items"
    else:
        detail = f"must have at most {max_quantity} {'item' if max_quantity == 1 else 'items'}"
    return FieldError(ErrorType.TOO_MANY, path, actual if actual >= 0 else OMITTED, detail)


def aggregate_message(errors: Iterable[FieldError]) -> str:
    """The text upstream puts after `<Kind> "<name>" is invalid: `: one error bare, several as `[a, b]`."""
    texts = list(dict.fromkeys(str(error) for error in errors))
    if len(texts) == 1:
        return texts[0]
    return "[" + ", ".join(texts) + "]" if texts else ""
