"""One small engine that runs a kind's table of validation rules over a JSON-shaped object.

Upstream writes each kind's validation as Go functions; most of their lines are the same few
shapes repeated: a field is required, an integer lies in a range, a string is one of an enum or has
a format, a list item's name is unique, a field may not change on update. Those shapes are data
here (`Required`, `Range`, `OneOf`, `Format`, `Each`, `Immutable`), and what is genuinely logic
(cross-field rules) is a `Check` function. A table is a tuple of rules, run in order, so the errors
come out in upstream's order. Paths are relative to the node the table runs on and use dots
(`spec.template`); `Each` walks a list and runs an item table on every item.

Every write runs the tables, so each rule compiles its check once, when the table is built: a
closure over its path's steps and constants (`getter`, `compile_table`). Rules are therefore built
at import, never inside a check.

Objects arrive decoded and defaulted, and type errors were refused at decode time, so a rule reads
plain values; a member of an unexpected type is treated as absent rather than raising.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from svc.machinery.field_errors import (
    FieldError,
    Rendered,
    duplicate,
    invalid,
    not_supported,
    required,
)
from svc.machinery.gotext import json_marshal

Obj = dict[str, Any]
CheckFn = Callable[[Any, str], list[FieldError]]
UpdateCheckFn = Callable[[Any, Any, str], list[FieldError]]

NEGATIVE: Final = "must be greater than or equal to 0"
IMMUTABLE: Final = "field is immutable"


def inclusive_range(low: int, high: int) -> str:
    """Upstream's `InclusiveRangeError` text."""
    return f"must be between {low} and {high}, inclusive"


def join(base: str, name: str) -> str:
    return f"{base}.{name}" if base else name


def lookup(node: Any, path: str) -> Any:
    """The value at a dotted path below `node`, or None when any step is absent or not an object."""
    if "." not in path:
        if type(node) is dict:
            return node.get(path) if path else node
        return None if path else node
    value = node
    for part in path.split("."):
        if type(value) is not dict:
            return None
        value = value.get(part)
    return value


def getter(path: str) -> Callable[[Any], Any]:
    """`lookup` for one fixed path, its steps split once: rules read their paths on every write."""
    if not path:
        return lambda node: node
    if "." not in path:
        return lambda node: node.get(path) if type(node) is dict else None
    parts = tuple(path.split("."))

    def get(node: Any) -> Any:
        for part in parts:
            if type(node) is not dict:
                return None
            node = node.get(part)
        return node

    return get


def is_empty(value: Any) -> bool:
    """What Go's `len(x) == 0` (or a nil pointer) sees as unset."""
    return value is None or value == "" or value == [] or value == {}


def items(value: Any) -> list[Any]:
    return value if type(value) is list else []


def text(node: Any, path: str) -> str:
    """A string member, or "" when absent or of another type (which decoding would have refused)."""
    value = lookup(node, path)
    return value if type(value) is str else ""


def mapping(node: Any, path: str) -> dict[str, Any]:
    """An object member, or {} when absent or of another type."""
    value = lookup(node, path)
    return value if type(value) is dict else {}


def string_map(node: Any, path: str) -> dict[str, str]:
    """A map of strings (labels, selectors), without members of another type."""
    return {key: value for key, value in mapping(node, path).items() if type(value) is str}


def integer(node: Any, path: str) -> int | None:
    value = lookup(node, path)
    return value if type(value) is int else None


def go_struct(value: Any, members: tuple[str, ...], zero: dict[str, Any] | None = None) -> Rendered:
    """An internal Go struct as upstream prints it: JSON with the Go field names in declaration order.

    Upstream's internal types carry no JSON tags, so a member `maxSurge` prints as `MaxSurge` (a member
    written `seLinuxOptions=SELinuxOptions` names its Go field); unset members print as their Go zero
    value (`zero`, else null for pointers).
    """
    value = value if isinstance(value, dict) else {}
    zero = zero or {}
    shown = []
    for member in members:
        key, _, go_name = member.partition("=")
        shown.append(f'"{go_name or key[:1].upper() + key[1:]}":{json_marshal(value.get(key, zero.get(key)))}')
    return Rendered("{" + ",".join(shown) + "}")


def _compiled(rule: Any, run: CheckFn) -> None:
    """Give a frozen rule its compiled `run`: a closure over its path's steps and constants, built once
    with the table, so a write pays no attribute reads, path splitting or method dispatch per rule."""
    object.__setattr__(rule, "run", run)


@dataclass(frozen=True)
class Required:
    """The field must be set (a nil pointer, empty string, list or map is not)."""

    path: str
    detail: str = ""
    run: CheckFn = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        get, path, detail = getter(self.path), self.path, self.detail

        def run(node: Any, base: str) -> list[FieldError]:
            return [required(join(base, path), detail)] if is_empty(get(node)) else []

        _compiled(self, run)


@dataclass(frozen=True)
class OneOf:
    """An enum: an empty value is Required (unless optional), any other value outside `values` NotSupported."""

    path: str
    values: tuple[str, ...]
    optional: bool = False
    run: CheckFn = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        get, path, values, optional = getter(self.path), self.path, self.values, self.optional

        def run(node: Any, base: str) -> list[FieldError]:
            value = get(node)
            if value is None or value == "":
                if optional and value is None:
                    return []
                return [required(join(base, path))]
            if value not in values:
                return [not_supported(join(base, path), value, values)]
            return []

        _compiled(self, run)


@dataclass(frozen=True)
class Range:
    """An integer within [minimum, maximum] (non-negative unless told; no maximum unless told).

    Absent values are skipped.
    """

    path: str
    minimum: int | None = 0
    maximum: int | None = None
    detail: str = NEGATIVE
    run: CheckFn = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        get, path, minimum, maximum, detail = getter(self.path), self.path, self.minimum, self.maximum, self.detail

        def run(node: Any, base: str) -> list[FieldError]:
            value = get(node)
            if not isinstance(value, int) or isinstance(value, bool):
                return []
            if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
                return [invalid(join(base, path), value, detail)]
            return []

        _compiled(self, run)


@dataclass(frozen=True)
class Format:
    """A string checked by one of the `is_*` syntax functions (one Invalid per message it returns).

    An empty value is skipped, or reported as Required when `required` is set.
    """

    path: str
    check: Callable[[str], list[str]]
    required: bool = False
    run: CheckFn = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        get, path, check, is_required = getter(self.path), self.path, self.check, self.required

        def run(node: Any, base: str) -> list[FieldError]:
            value = get(node)
            if not isinstance(value, str) or value == "":
                return [required(join(base, path))] if is_required else []
            messages = check(value)
            return [invalid(join(base, path), value, message) for message in messages] if messages else []

        _compiled(self, run)


@dataclass(frozen=True)
class Each:
    """Run `table` on every item of a list; `unique` names an item member that must not repeat."""

    path: str
    table: Table
    unique: str = ""
    run: CheckFn = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        get, path, unique, run_item = getter(self.path), self.path, self.unique, compile_table(self.table)

        def run(node: Any, base: str) -> list[FieldError]:
            values = get(node)
            if type(values) is not list or not values:
                return []
            errors: list[FieldError] = []
            seen: set[Any] = set()
            where = join(base, path)
            for index, item in enumerate(values):
                item_path = f"{where}[{index}]"
                errors += run_item(item, item_path)
                if unique and type(item) is dict:
                    key = item.get(unique)
                    if not isinstance(key, str | int):
                        continue
                    if key in seen:
                        errors.append(duplicate(join(item_path, unique), key))
                    seen.add(key)
            return errors

        _compiled(self, run)


@dataclass(frozen=True)
class At:
    """Run `table` on the object at `path`.

    An absent object is validated as empty, as upstream's Go struct (not pointer) fields always exist;
    `optional` marks a pointer field, skipped when absent.
    """

    path: str
    table: Table
    optional: bool = False
    run: CheckFn = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        get, path, optional, run_inner = getter(self.path), self.path, self.optional, compile_table(self.table)

        def run(node: Any, base: str) -> list[FieldError]:
            value = get(node)
            if type(value) is not dict:
                if optional:
                    return []
                value = {}
            return run_inner(value, join(base, path))

        _compiled(self, run)


@dataclass(frozen=True)
class Check:
    """Logic that no table shape expresses: `fn(node, path)` returns the errors."""

    fn: CheckFn
    run: CheckFn = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _compiled(self, self.fn)


Rule = Required | OneOf | Range | Format | Each | At | Check
Table = tuple[Rule, ...]


def run(table: Iterable[Rule], node: Any, base: str = "") -> list[FieldError]:
    errors: list[FieldError] = []
    for rule in table:
        errors += rule.run(node, base)
    return errors


def compile_table(table: Iterable[Rule]) -> CheckFn:
    """`run` of one fixed table: its rules' compiled checks gathered once into a tuple."""
    checks = tuple(rule.run for rule in table)

    def run_table(node: Any, base: str) -> list[FieldError]:
        errors: list[FieldError] = []
        for check in checks:
            errors += check(node, base)
        return errors

    return run_table


@dataclass(frozen=True)
class Immutable:
    """On update, the value at `path` may not change (upstream's `ValidateImmutableField`)."""

    path: str
    render: Callable[[Any], Any] = lambda value: value

    def run(self, new: Any, old: Any, base: str) -> list[FieldError]:
        value = lookup(new, self.path)
        if value != lookup(old, self.path):
            return [invalid(join(base, self.path), self.render(value), IMMUTABLE)]
        return []


@dataclass(frozen=True)
class UpdateCheck:
    """Update logic no table shape expresses: `fn(new, old, path)` returns the errors."""

    fn: UpdateCheckFn

    def run(self, new: Any, old: Any, base: str) -> list[FieldError]:
        return self.fn(new, old, base)


UpdateRule = Immutable | UpdateCheck
UpdateTable = tuple[UpdateRule, ...]


def run_update(table: Iterable[UpdateRule], new: Any, old: Any, base: str = "") -> list[FieldError]:
    errors: list[FieldError] = []
    for rule in table:
        errors += rule.run(new, old, base)
    return errors


Ratchet = Callable[[FieldError, Obj], bool]
"""A class of errors (a predicate on an error and the object it was found in) that an update may keep
when the stored object already has one."""


KeptValue = Callable[[FieldError], Hashable | None]
"""A key for errors an update may repeat when the stored object has an error of the same key
(upstream's `validOldIPs`: an address kept from the stored object is checked as leniently as then)."""


def _ratcheted(
    errors: list[FieldError],
    rules: KindRules,
    new: Obj,
    old: Obj,
) -> list[FieldError]:
    """Drop the errors of each ratchet class the stored object already had errors of, and the errors
    whose kept-value key the stored object's errors share; the stored object is validated only when
    the new one has such errors (the common update pays nothing)."""
    hit = [ratchet for ratchet in rules.ratchets if any(ratchet(error, new) for error in errors)]
    keyed = [key for key in rules.kept_values if any(key(error) is not None for error in errors)]
    if not hit and not keyed:
        return errors
    previous = rules.run_create(old, "")
    allowed = [ratchet for ratchet in hit if any(ratchet(error, old) for error in previous)]
    kept = {(index, key(error)) for index, key in enumerate(keyed) for error in previous if key(error) is not None}
    return [
        error
        for error in errors
        if not any(ratchet(error, new) for ratchet in allowed)
        and not any((index, key(error)) in kept for index, key in enumerate(keyed))
    ]


@dataclass(frozen=True)
class KindRules:
    """A kind's validation: `create` runs on every write; `update` adds the rules comparing with the old object.

    Upstream's update validators re-validate the new object in full, then compare; so does
    `validate_update`, in upstream's order (comparisons first for kinds where upstream puts them first).
    """

    create: Table
    update: UpdateTable = ()
    update_first: bool = False
    revalidate_on_update: bool = True
    """False for the few kinds whose upstream update checks only the comparisons (Events)."""
    ratchets: tuple[Ratchet, ...] = ()
    """Upstream's validation options derived from the old object (`AllowInvalidLabelValueInSelector`
    and kin): an update may keep invalid values of a class the stored object already holds."""
    kept_values: tuple[KeptValue, ...] = ()
    status: UpdateTable = ()
    """What a write through `/status` must satisfy (upstream's `ValidateXStatusUpdate`): the status rules,
    comparing with the stored object where upstream does; the spec is the stored one by then."""

    run_create: CheckFn = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "run_create", compile_table(self.create))

    def validate(self, obj: Obj) -> list[FieldError]:
        return self.run_create(obj, "")

    def revalidate(self, new: Obj, old: Obj) -> list[FieldError]:
        """The new object validated in full, but for the invalid values of a class the old one holds."""
        revalidated = self.run_create(new, "")
        if self.ratchets or self.kept_values:
            revalidated = _ratcheted(revalidated, self, new, old)
        return revalidated

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        comparisons = run_update(self.update, new, old)
        if not self.revalidate_on_update:
            return comparisons
        revalidated = self.revalidate(new, old)
        if self.update_first:
            return comparisons + revalidated
        return revalidated + comparisons

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return run_update(self.status, new, old)
