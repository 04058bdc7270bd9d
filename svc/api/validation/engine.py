"""One small engine that runs a kind's table of validation rules over a JSON-shaped object.

Upstream writes each kind's validation as Go functions; most of their lines are the same few
shapes repeated: a field is required, an integer lies in a range, a string is one of an enum or has
a format, a list item's name is unique, a field may not change on update. Those shapes are data
here (`Required`, `Range`, `OneOf`, `Format`, `Each`, `Immutable`), and what is genuinely logic
(cross-field rules) is a `Check` function. A table is a tuple of rules, run in order, so the errors
come out in upstream's order. Paths are relative to the node the table runs on and use dots
(`spec.template`); `Each` walks a list and runs an item table on every item.

Objects arrive decoded and defaulted, and type errors were refused at decode time, so a rule reads
plain values; a member of an unexpected type is treated as absent rather than raising.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
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
        return node.get(path) if type(node) is dict and path else (node if not path else None)
    value = node
    for part in path.split("."):
        if type(value) is not dict:
            return None
        value = value.get(part)
    return value


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


@dataclass(frozen=True)
class Required:
    """The field must be set (a nil pointer, empty string, list or map is not)."""

    path: str
    detail: str = ""

    def run(self, node: Any, base: str) -> list[FieldError]:
        return [required(join(base, self.path), self.detail)] if is_empty(lookup(node, self.path)) else []


@dataclass(frozen=True)
class OneOf:
    """An enum: an empty value is Required (unless optional), any other value outside `values` NotSupported."""

    path: str
    values: tuple[str, ...]
    optional: bool = False

    def run(self, node: Any, base: str) -> list[FieldError]:
        value = lookup(node, self.path)
        if value is None or value == "":
            if self.optional and value is None:
                return []
            return [required(join(base, self.path))]
        if value not in self.values:
            return [not_supported(join(base, self.path), value, self.values)]
        return []


@dataclass(frozen=True)
class Range:
    """An integer within [minimum, maximum] (non-negative unless told; no maximum unless told).

    Absent values are skipped.
    """

    path: str
    minimum: int | None = 0
    maximum: int | None = None
    detail: str = NEGATIVE

    def run(self, node: Any, base: str) -> list[FieldError]:
        value = lookup(node, self.path)
        if not isinstance(value, int) or isinstance(value, bool):
            return []
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            return [invalid(join(base, self.path), value, self.detail)]
        return []


@dataclass(frozen=True)
class Format:
    """A string checked by one of the `is_*` syntax functions (one Invalid per message it returns).

    An empty value is skipped, or reported as Required when `required` is set.
    """

    path: str
    check: Callable[[str], list[str]]
    required: bool = False

    def run(self, node: Any, base: str) -> list[FieldError]:
        value = lookup(node, self.path)
        if not isinstance(value, str) or value == "":
            return [required(join(base, self.path))] if self.required else []
        messages = self.check(value)
        return [invalid(join(base, self.path), value, message) for message in messages] if messages else []


@dataclass(frozen=True)
class Each:
    """Run `table` on every item of a list; `unique` names an item member that must not repeat."""

    path: str
    table: Table
    unique: str = ""

    def run(self, node: Any, base: str) -> list[FieldError]:
        errors: list[FieldError] = []
        seen: set[Any] = set()
        values = items(lookup(node, self.path))
        where = join(base, self.path) if values else ""
        for index, item in enumerate(values):
            item_path = f"{where}[{index}]"
            errors += run(self.table, item, item_path)
            if self.unique and type(item) is dict:
                key = item.get(self.unique)
                if not isinstance(key, str | int):
                    continue
                if key in seen:
                    errors.append(duplicate(join(item_path, self.unique), key))
                seen.add(key)
        return errors


@dataclass(frozen=True)
class At:
    """Run `table` on the object at `path`.

    An absent object is validated as empty, as upstream's Go struct (not pointer) fields always exist;
    `optional` marks a pointer field, skipped when absent.
    """

    path: str
    table: Table
    optional: bool = False

    def run(self, node: Any, base: str) -> list[FieldError]:
        value = lookup(node, self.path)
        if type(value) is not dict:
            if self.optional:
                return []
            value = {}
        return run(self.table, value, join(base, self.path))


@dataclass(frozen=True)
class Check:
    """Logic that no table shape expresses: `fn(node, path)` returns the errors."""

    fn: CheckFn

    def run(self, node: Any, base: str) -> list[FieldError]:
        return self.fn(node, base)


Rule = Required | OneOf | Range | Format | Each | At | Check
Table = tuple[Rule, ...]


def run(table: Iterable[Rule], node: Any, base: str = "") -> list[FieldError]:
    errors: list[FieldError] = []
    for rule in table:
        errors += rule.run(node, base)
    return errors


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
    previous = run(rules.create, old)
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

    def validate(self, obj: Obj) -> list[FieldError]:
        return run(self.create, obj)

    def revalidate(self, new: Obj, old: Obj) -> list[FieldError]:
        """The new object validated in full, but for the invalid values of a class the old one holds."""
        revalidated = run(self.create, new)
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
