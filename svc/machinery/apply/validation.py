"""Checking an applied configuration against its schema, with upstream's error texts.

Upstream validates the configuration before merging it, and clients see these texts inside the
error (`.spec.replicas: expected numeric (int or float), got string`), including the Go renderings
of the offending values.
"""

from __future__ import annotations

from typing import Any

from svc.machinery import gotext
from svc.machinery.apply.fieldpath import PathElement
from svc.machinery.apply.shapes import Kind, Scalar, Shape
from svc.machinery.apply.typed import TypedError, item_element

# Where a value is, as (where its parent is, its own step): rendered only for an error, since
# rendering a list item's key for every value checked was most of the check's time.
Where = tuple[Any, "str | PathElement"] | None


def _text(where: Where) -> str:
    steps = []
    while where is not None:
        where, step = where
        steps.append(step if isinstance(step, str) else str(step))
    return "".join(reversed(steps))


def validate(value: Any, shape: Shape) -> None:
    """Raise TypedError if `value` does not fit the schema, in upstream's words."""
    errors: list[str] = []
    _validate(value, shape, None, errors)
    if errors:
        raise TypedError(errors)


def _validate(value: Any, shape: Shape, where: Where, errors: list[str]) -> None:
    if value is None:
        return
    kind = shape.resolve(value)
    resolved = shape.as_resolved(kind)

    def fail(message: str) -> None:
        text = _text(where)
        errors.append(f"{text}: {message}" if text else message)

    if kind is Kind.SCALAR:
        problem = _scalar_problem(resolved.scalar, value)
        if problem:
            fail(problem)
    elif kind is Kind.LIST:
        if not isinstance(value, list):
            fail(f"expected list, got &{{{gotext.format_v(value)}}}")
            return
        seen: set[PathElement] = set()
        for position, item in enumerate(value):
            if not resolved.associative:
                element = PathElement.index(position)
            else:
                try:
                    element = item_element(resolved, item)
                except ValueError as error:
                    fail(f"element {position}: {error}")
                    return
                if element in seen:
                    fail(f"duplicate entries for key {element}")
                seen.add(element)
            _validate(item, resolved.element, (where, element), errors)
    elif not isinstance(value, dict):
        fail(f"expected map, got &{{{gotext.format_v(value)}}}")
    else:
        for key in sorted(value):
            child = resolved.field(key)
            if child is None:
                errors.append(f"{_text(where)}.{key}: field not declared in schema")
                return
            _validate(value[key], child, (where, "." + key), errors)


def _scalar_problem(scalar: Scalar, value: Any) -> str:
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if scalar is Scalar.NUMERIC and not is_number:
        return f"expected numeric (int or float), got {gotext.type_name(value)}"
    if scalar is Scalar.STRING and not isinstance(value, str):
        return f"expected string, got &value.valueUnstructured{{Value:{gotext.format_sharp_v(value)}}}"
    if scalar is Scalar.BOOLEAN and not isinstance(value, bool):
        return f"expected boolean, got &{{{gotext.format_v(value)}}}"
    if scalar is Scalar.UNTYPED and isinstance(value, dict | list):
        return f"expected any scalar, got &{{{gotext.format_v(value)}}}"
    return ""
