"""Checking an applied configuration against its schema, with upstream's error texts.

Upstream validates the configuration before merging it, and clients see these texts inside the
error (`.spec.replicas: expected numeric (int or float), got string`), including the Go renderings
of the offending values.
"""

from __future__ import annotations

from typing import Any

from svc.machinery import gotext
from svc.machinery.apply.fieldpath import FieldSet, Path, PathElement
from svc.machinery.apply.shapes import Kind, Scalar, Shape
from svc.machinery.apply.typed import TypedError, item_element

# Where a value is, as (where its parent is, its own step): a field name, a list position or a list
# item's element. It is rendered only for an error, since rendering a list item's key for every value
# checked was most of the check's time.
Where = tuple[Any, "str | int | PathElement"] | None

# The value types that always fit a scalar kind, so a leaf of one of them needs no further look.
_FITTING = {
    Scalar.STRING: frozenset({str}),
    Scalar.NUMERIC: frozenset({int, float}),
    Scalar.BOOLEAN: frozenset({bool}),
    Scalar.UNTYPED: frozenset({str, int, float, bool}),
}


def _text(where: Where) -> str:
    steps = []
    while where is not None:
        where, step = where
        if isinstance(step, str):
            steps.append("." + step)
        elif isinstance(step, int):
            steps.append(f"[{step}]")
        else:
            steps.append(str(step))
    return "".join(reversed(steps))


def validate(value: Any, shape: Shape) -> None:
    """Raise TypedError if `value` does not fit the schema, in upstream's words.

    A first walk takes map entries as they come; only when it finds a problem does a second walk,
    in upstream's (sorted) order, collect the errors to report.
    """
    errors: list[str] = []
    _validate(value, shape, None, errors, False)
    if errors:
        errors.clear()
        _validate(value, shape, None, errors, True)
        raise TypedError(errors)


def validated_field_set(value: Any, shape: Shape) -> FieldSet:
    """`validate(value, shape)`, then `field_set(value, shape)`, in one walk: an apply checks its
    configuration and then owns every field of it."""
    errors: list[str] = []
    out: list[Path] = []
    _own(value, shape, None, (), errors, out)
    if errors:
        ordered: list[str] = []
        _validate(value, shape, None, ordered, True)
        raise TypedError(ordered or errors)
    return FieldSet(out)


def _own(value: Any, shape: Shape, where: Where, path: Path, errors: list[str], out: list[Path]) -> None:
    """Check `value` and collect its owned paths; the paths are only used once no error was found, so
    they follow `field_set`'s rules for valid values (no duplicate items, no undeclared fields)."""
    kind = shape.resolve(value)
    resolved = shape.as_resolved(kind)
    if kind is Kind.SCALAR or resolved.atomic:
        out.append(path)
        _validate(value, shape, where, errors, False)
    elif kind is Kind.LIST:
        if not isinstance(value, list):
            _fail(errors, where, f"expected list, got &{{{gotext.format_v(value)}}}")
            return
        seen: set[PathElement] = set()
        for position, item in enumerate(value):  # a list that is not atomic is associative
            element = _item_step(resolved, position, item, seen, where, errors)
            if element is None:
                return
            item_path = (*path, element)
            out.append(item_path)
            _own(item, resolved.element, (where, element), item_path, errors, out)
    elif not isinstance(value, dict):
        _fail(errors, where, f"expected map, got &{{{gotext.format_v(value)}}}")
    else:
        for key, item in value.items():
            child = _declared(resolved, key, where, errors)
            if child is None:
                return
            child_path = (*path, PathElement.field(key))
            if item is None or child.kind is Kind.SCALAR:
                out.append(child_path)
                if item is not None and type(item) not in _FITTING[child.scalar]:
                    _validate(item, child, (where, key), errors, False)
                continue
            _own(item, child, (where, key), child_path, errors, out)
            if item == {} or not resolved.is_declared(key):
                out.append(child_path)


def _fail(errors: list[str], where: Where, message: str) -> None:
    text = _text(where)
    errors.append(f"{text}: {message}" if text else message)


def _item_step(
    shape: Shape, position: int, item: Any, seen: set[PathElement], where: Where, errors: list[str]
) -> int | PathElement | None:
    """How item `position` of a list is named: its position, or in an associative list its element;
    None when it has none, which ends the check of that list."""
    if not shape.associative:
        return position
    try:
        element = item_element(shape, item)
    except ValueError as error:
        _fail(errors, where, f"element {position}: {error}")
        return None
    if element in seen:
        _fail(errors, where, f"duplicate entries for key {element}")
    seen.add(element)
    return element


def _declared(shape: Shape, key: str, where: Where, errors: list[str]) -> Shape | None:
    """The shape of map entry `key`; None when the struct does not declare it, which ends its check."""
    child = shape.field(key)
    if child is None:
        errors.append(f"{_text(where)}.{key}: field not declared in schema")
    return child


def _validate(value: Any, shape: Shape, where: Where, errors: list[str], ordered: bool) -> None:
    if value is None:
        return
    kind = shape.resolve(value)
    resolved = shape.as_resolved(kind)
    if kind is Kind.SCALAR:
        problem = _scalar_problem(resolved.scalar, value)
        if problem:
            _fail(errors, where, problem)
    elif kind is Kind.LIST:
        if not isinstance(value, list):
            _fail(errors, where, f"expected list, got &{{{gotext.format_v(value)}}}")
            return
        seen: set[PathElement] = set()
        for position, item in enumerate(value):
            step = _item_step(resolved, position, item, seen, where, errors)
            if step is None:
                return
            _validate(item, resolved.element, (where, step), errors, ordered)
    elif not isinstance(value, dict):
        _fail(errors, where, f"expected map, got &{{{gotext.format_v(value)}}}")
    else:
        for key in sorted(value) if ordered else value:
            child = _declared(resolved, key, where, errors)
            if child is None:
                return
            item = value[key]
            if child.kind is Kind.SCALAR and type(item) in _FITTING[child.scalar]:
                continue
            _validate(item, child, (where, key), errors, ordered)


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
