"""Schema-aware walks of plain JSON objects: the field set of an object, the fields that differ between
two objects, merging an applied configuration into a live object, and removing fields.

These follow structured-merge-diff's observable rules, which decide what a manager owns:
- a field set holds every scalar leaf, every atomic list or map, every item of an associative list,
  every entry of a plain map, and struct fields only when they are null or `{}`;
- a comparison reports added and removed nodes at every level, and modified values only at leaves
  (scalars, atomic values, and empty or null maps and lists, which stay leaves to keep `[]` apart
  from `null`);
- a merge takes the configuration's value at leaves, merges granular maps key by key and associative
  lists item by item, keeping the configuration's item order and slotting the live object's other
  items in where they were.
Written by hand: no Python package implements server-side apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from svc.machinery import gotext
from svc.machinery.apply.fieldpath import FIELD, KEY, FieldSet, Path, PathElement
from svc.machinery.apply.shapes import DEDUCED, Kind, Shape
from svc.machinery.apply.zero_values import with_zero_fields, with_zero_values


class _Absent:
    """A field that is not there at all, as opposed to an explicit null."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


class TypedError(ValueError):
    """An object that does not fit its schema; the text is upstream's validation error list."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        text = errors[0] if len(errors) == 1 else "errors:\n" + "\n".join(f"  {error}" for error in errors)
        super().__init__(text)


@dataclass(frozen=True)
class Comparison:
    removed: FieldSet
    modified: FieldSet
    added: FieldSet

    def within(self, owned: Callable[[FieldSet], FieldSet]) -> Comparison:
        """Only the changes a write may own (`owned` filters a field set: see `field_filter`)."""
        return Comparison(owned(self.removed), owned(self.modified), owned(self.added))


def values_equal(left: Any, right: Any) -> bool:
    """JSON equality as upstream sees it: 1 equals 1.0, but true never equals 1."""
    if left is right:
        return True
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and left.keys() == right.keys()
            and all(values_equal(item, right[key]) for key, item in left.items())
        )
    if isinstance(left, list):
        return (
            isinstance(right, list)
            and len(left) == len(right)
            and all(values_equal(a, b) for a, b in zip(left, right, strict=True))
        )
    return type(left) is type(right) and left == right


def item_element(shape: Shape, item: Any) -> PathElement:
    """The path element naming `item` in an associative list: its keys, or its value for a set."""
    keys = shape.keys
    if keys:
        if len(keys) == 1 and isinstance(item, dict) and keys[0] in item:
            return PathElement.single_key(keys[0], item[keys[0]])
        if item is None:
            raise ValueError("associative list with keys may not have a null element")
        if not isinstance(item, dict):
            raise ValueError("associative list with keys may not have non-map elements")
        pairs = []
        for name in shape.keys:
            if name in item:
                pairs.append((name, item[name]))
            else:
                default = shape.key_default(name)
                if default is not None:
                    pairs.append((name, default))
        if not pairs:
            names = " ".join(gotext.quote(name) for name in shape.keys)
            raise ValueError(
                f"associative list with keys has an element that omits all key fields [{names}] "
                "(and doesn't have default values for any key fields)"
            )
        return PathElement.key(tuple(pairs))
    if isinstance(item, dict):
        raise ValueError("associative list without keys has an element that's a map type")
    if isinstance(item, list):
        raise ValueError("not supported: associative list with lists as elements")
    if item is None:
        raise ValueError("associative list without keys has an element that's an explicit null")
    return PathElement.value(item)


def _elements(shape: Shape, items: list[Any], path: Path) -> list[PathElement]:
    try:
        return [item_element(shape, item) for item in items]
    except ValueError as error:
        raise TypedError([_at(path, str(error))]) from None


def _at(path: Path, message: str) -> str:
    prefix = "".join(str(element) for element in path)
    return f"{prefix}: {message}" if prefix else message


# ---------------------------------------------------------------------------------------------- field set


def field_set(value: Any, shape: Shape) -> FieldSet:
    """Every field of `value` a manager would own by setting it (upstream `ToFieldSet`)."""
    out: list[Path] = []
    _collect(value, shape, (), out)
    return FieldSet(out)


def _collect(value: Any, shape: Shape, path: Path, out: list[Path]) -> None:
    kind = shape.resolve(value)
    resolved = shape.as_resolved(kind)
    if kind is Kind.SCALAR or resolved.atomic:
        out.append(path)
    elif kind is Kind.LIST and isinstance(value, list):
        elements = _elements(resolved, value, path)
        seen: set[PathElement] = set()
        repeated: set[PathElement] = set()
        for element in elements:
            if element in seen and element not in repeated:
                out.append((*path, element))
                repeated.add(element)
            seen.add(element)
        for item, element in zip(value, elements, strict=True):
            if element not in repeated:
                _collect(item, resolved.element, (*path, element), out)
                out.append((*path, element))
    elif kind is Kind.MAP and isinstance(value, dict):
        for key, item in value.items():
            child = (*path, PathElement.field(key))
            child_shape = resolved.field(key) or DEDUCED
            if child_shape.kind is Kind.SCALAR or child_shape.atomic:
                out.append(child)  # a leaf, as the call below would find, without the call
                continue
            _collect(item, child_shape, child, out)
            if item is None or item == {} or not resolved.is_declared(key):
                out.append(child)


# ---------------------------------------------------------------------------------------------- compare


def compare(old: Any, new: Any, shape: Shape, *, zero_values: bool = False) -> Comparison:
    """The fields removed, modified and added going from `old` to `new`.

    With `zero_values`, both compare as `with_zero_values` would make them, filled one map at a time
    as the walk reaches it rather than copied whole first.
    """
    differ = _Differ(zero_values)
    differ.node(old, new, shape, ())
    return Comparison(FieldSet(differ.removed), FieldSet(differ.modified), FieldSet(differ.added))


class _Differ:
    """One comparison's walk and the paths it found."""

    __slots__ = ("added", "fill", "modified", "removed")

    def __init__(self, fill: bool) -> None:
        self.fill = fill
        self.removed: list[Path] = []
        self.modified: list[Path] = []
        self.added: list[Path] = []

    def node(self, left: Any, right: Any, shape: Shape, path: Path) -> None:
        if type(left) is type(right) and left == right and not isinstance(left, dict | list | _Absent):
            return  # the common case, an unchanged scalar: whatever the shape, nothing to record
        left_kind = None if left is ABSENT else shape.resolve(left)
        right_kind = None if right is ABSENT else shape.resolve(right)
        if right_kind is None or left_kind is None or left_kind is right_kind:
            leaf = self.node_as(left_kind or right_kind, left, right, shape, path)
        else:
            self.node_as(left_kind, left, right, shape, path)
            leaf = self.node_as(right_kind, left, right, shape, path)
        if not leaf:
            if left is ABSENT:
                self.added.append(path)
            elif right is ABSENT:
                self.removed.append(path)

    def node_as(self, kind: Any, left: Any, right: Any, shape: Shape, path: Path) -> bool:
        """Compare as `kind`; True when this node was compared as one leaf value."""
        resolved = shape.as_resolved(kind)
        if kind is Kind.MAP:
            left_map = left if isinstance(left, dict) else None
            right_map = right if isinstance(right, dict) else None
            if self.fill:
                left_map = None if left_map is None else with_zero_fields(left_map, resolved)
                right_map = None if right_map is None else with_zero_fields(right_map, resolved)
            if not (resolved.atomic or (not left_map and not right_map)):
                self.entries(left_map or {}, right_map or {}, resolved, path)
                return False
        elif kind is Kind.LIST:
            left_list = left if isinstance(left, list) else None
            right_list = right if isinstance(right, list) else None
            if not (resolved.atomic or (not left_list and not right_list)):
                self.items(left_list or [], right_list or [], resolved, path)
                return False
        if left is ABSENT:
            self.added.append(path)
        elif right is ABSENT:
            self.removed.append(path)
        elif not values_equal(self.filled(left, shape), self.filled(right, shape)):
            self.modified.append(path)
        return True

    def entries(self, left: dict[str, Any], right: dict[str, Any], shape: Shape, path: Path) -> None:
        for key in {**left, **right}:
            before, after = left.get(key, ABSENT), right.get(key, ABSENT)
            kind = type(before)
            if (kind is dict or kind is list) and kind is type(after):
                self.same_kind(before, after, shape.field(key) or DEDUCED, (*path, PathElement.field(key)))
            elif kind is not type(after) or before != after or isinstance(before, dict | list):
                self.node(before, after, shape.field(key) or DEDUCED, (*path, PathElement.field(key)))
            # else an unchanged scalar, as in `node`, without the call

    def same_kind(self, left: Any, right: Any, shape: Shape, path: Path) -> None:
        """Two maps or two lists: where the shape walks into them, go straight there (as `node` would)."""
        if shape.kind is Kind.MAP and type(left) is dict and not shape.atomic:
            if self.fill:
                left, right = with_zero_fields(left, shape), with_zero_fields(right, shape)
            if left or right:
                self.entries(left, right, shape, path)
                return
        elif shape.kind is Kind.LIST and type(left) is list and not shape.atomic and (left or right):
            self.items(left, right, shape, path)
            return
        self.node(left, right, shape, path)

    def items(self, left: list[Any], right: list[Any], shape: Shape, path: Path) -> None:
        left_groups = self.group(shape, left, path)
        right_groups = self.group(shape, right, path)
        element_shape = shape.element
        for element in {**left_groups, **right_groups}:
            before = left_groups.get(element, [])
            after = right_groups.get(element, [])
            item_path = (*path, element)
            if len(before) == 1 and len(after) == 1 and type(before[0]) is type(after[0]) is dict:
                self.same_kind(before[0], after[0], element_shape, item_path)
            elif len(before) <= 1 and len(after) <= 1:
                self.node(before[0] if before else ABSENT, after[0] if after else ABSENT, element_shape, item_path)
            elif len(before) >= 2 and len(after) >= 2:
                if not values_equal(self.filled(before, shape), self.filled(after, shape)):
                    self.modified.append(item_path)
            elif len(before) >= 2:
                if after:
                    self.node(ABSENT, after[0], element_shape, item_path)
                self.removed.append(item_path)
            else:
                if before:
                    self.node(before[0], ABSENT, element_shape, item_path)
                self.added.append(item_path)

    def group(self, shape: Shape, items: list[Any], path: Path) -> dict[PathElement, list[Any]]:
        """The items by the element naming them; filled first, since a filled key field names an item."""
        element_shape = shape.element
        if self.fill and element_shape.kind is Kind.MAP:  # only struct items have fields to fill
            items = [with_zero_fields(item, element_shape) if isinstance(item, dict) else item for item in items]
        groups: dict[PathElement, list[Any]] = {}
        for element, item in zip(_elements(shape, items, path), items, strict=True):
            groups.setdefault(element, []).append(item)
        return groups

    def filled(self, value: Any, shape: Shape) -> Any:
        """A value compared whole, as the walk would have filled it."""
        if self.fill and isinstance(value, dict | list):
            return with_zero_values(value, shape)
        return value


# ---------------------------------------------------------------------------------------------- merge


def merge(live: Any, config: Any, shape: Shape) -> Any:
    """`config` merged over `live`; subtrees only one side has are shared, not copied.

    `config` should have passed `validate` (a list naming one item twice is only caught where the
    live object has that list too).
    """
    merged = _merge(live, config, shape, ())
    return {} if merged is ABSENT else merged


def _merge(left: Any, right: Any, shape: Shape, path: Path) -> Any:
    if right is ABSENT:
        return left
    if left is ABSENT or (not isinstance(right, dict | list) and not isinstance(left, dict | list)):
        return right
    kind = shape.resolve(right)
    resolved = shape.as_resolved(kind)
    if kind is Kind.MAP:
        left_map = left if isinstance(left, dict) else None
        right_map = right if isinstance(right, dict) else None
        if resolved.atomic or (not left_map and not right_map):
            return right
        left_map, right_map = left_map or {}, right_map or {}
        out = {}
        for key in {**left_map, **right_map}:
            before, after = left_map.get(key, ABSENT), right_map.get(key, ABSENT)
            if after is ABSENT:
                out[key] = before  # the first two cases of a call, without the call
            elif before is ABSENT or (not isinstance(after, dict | list) and not isinstance(before, dict | list)):
                out[key] = after
            else:
                merged = _merge(before, after, resolved.field(key) or DEDUCED, (*path, PathElement.field(key)))
                if merged is not ABSENT:
                    out[key] = merged
        return out or ABSENT
    if kind is Kind.LIST:
        left_list = left if isinstance(left, list) else None
        right_list = right if isinstance(right, list) else None
        if resolved.atomic or (not left_list and not right_list):
            return right
        return _merge_items(left_list or [], right_list or [], resolved, path) or ABSENT
    return right


def _merge_items(left: list[Any], right: list[Any], shape: Shape, path: Path) -> list[Any]:
    """Merge associative lists: the configuration's order, with live-only items kept in their place."""
    right_elements = _elements(shape, right, path)
    right_items: dict[PathElement, Any] = {}
    for element, item in zip(right_elements, right, strict=True):
        if element in right_items:
            raise TypedError([_at(path, f"duplicate entries for key {element}")])
        right_items[element] = item
    left_elements = _elements(shape, left, path)
    if left_elements == right_elements:  # the same items in the same order: merged pairwise
        pairs = zip(left_elements, left, right, strict=True)
        merged = [_merge(before, after, shape.element, (*path, element)) for element, before, after in pairs]
        return [item for item in merged if item is not ABSENT]
    left_items: dict[PathElement, Any] = {}
    for element, item in zip(left_elements, left, strict=True):
        left_items[element] = None if element in left_items else item
    shared = iter([element for element in right_elements if element in left_items])
    next_shared = next(shared, None)
    done: set[PathElement] = set()
    out: list[Any] = []

    def emit(before: Any, element: PathElement) -> None:
        merged = _merge(before, right_items.get(element, ABSENT), shape.element, (*path, element))
        if merged is not ABSENT:
            out.append(merged)

    li = ri = 0
    while li < len(left_elements) or ri < len(right_elements):
        if li < len(left_elements) and ri < len(right_elements):
            element = left_elements[li]
            if element == right_elements[ri]:
                done.add(element)
                emit(left_items[element], element)
                li, ri = li + 1, ri + 1
                next_shared = next(shared, None)
                continue
            if element in right_items and next_shared is not None and next_shared != element:
                li += 1
                continue
        if li < len(left_elements):
            element = left_elements[li]
            if element not in right_items:
                emit(left[li], element)
                li += 1
                continue
            if element in done:
                li += 1
        if ri < len(right_elements):
            element = right_elements[ri]
            done.add(element)
            emit(left_items.get(element, ABSENT), element)
            ri += 1
            if next_shared is not None and next_shared == element:
                next_shared = next(shared, None)
    return out


# ---------------------------------------------------------------------------------------------- removal


def remove_items(value: Any, fields: FieldSet, shape: Shape) -> Any:
    """`value` without the listed fields; a map or list emptied by the removal becomes null."""
    if not fields:
        return value
    removed = _remove(value, fields, shape)
    return {} if removed is None and isinstance(value, dict) else removed


def _remove(value: Any, fields: FieldSet, shape: Shape) -> Any:
    kind = shape.resolve(value)
    resolved = shape.as_resolved(kind)
    if kind is Kind.SCALAR:
        return value
    groups = fields.by_first_element()
    if kind is Kind.LIST:
        if not isinstance(value, list) or not value or resolved.atomic:
            return None
        items = []
        for item in value:
            try:
                element = item_element(resolved, item)
            except ValueError:
                items.append(item)
                continue
            member, below = groups.get(element, (False, FieldSet()))
            if not member:
                items.append(_remove(item, below, resolved.element) if below else item)
        return items or None
    if not isinstance(value, dict) or not value or resolved.atomic:
        return None
    entries = {}
    for key, item in value.items():
        member, below = groups.get(PathElement.field(key), (False, FieldSet()))
        if not member:
            entries[key] = _remove(item, below, resolved.field(key) or DEDUCED) if below else item
    return entries or None


def ensure_named_fields_are_members(fields: FieldSet, shape: Shape) -> FieldSet:
    """Add every declared struct field that has owned paths below it, so removing it removes them all."""
    extra: list[Path] = []
    _ensure(fields, shape, (), extra)
    return fields | FieldSet(extra) if extra else fields


def _ensure(fields: FieldSet, shape: Shape, prefix: Path, extra: list[Path]) -> None:
    for element, (_, below) in fields.by_first_element().items():
        if not below:
            continue
        child: Shape | None = None
        if element.kind == FIELD and shape.kind is Kind.MAP:
            if shape.is_declared(element.payload):
                extra.append((*prefix, element))
            child = shape.field(element.payload)
        elif element.kind == KEY and shape.kind is Kind.LIST:
            child = shape.element
        if child is not None and child.kind in (Kind.MAP, Kind.LIST):
            _ensure(below, child, (*prefix, element), extra)
