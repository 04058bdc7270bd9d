"""Static CEL types for the checker and the cost estimator: scalars, `list(T)`, `map(K, V)`, `optional(T)`, `dyn` and
object types derived from OpenAPI schemas (named fields, nothing else)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final


@dataclass(frozen=True)
class Type:
    kind: str
    params: tuple[Type, ...] = ()
    fields: Mapping[str, Type] | None = field(default=None, compare=False, hash=False)
    # The most characters, bytes, items or entries a value can have (a schema's maxLength,
    # maxItems, maxProperties); None when only the request size bounds it.
    max_size: int | None = field(default=None, compare=False, hash=False)
    # The fewest JSON bytes a value takes, where the schema says more than the type (a date, an
    # object with required properties); None for the type's own minimum.
    json_min: int | None = field(default=None, compare=False, hash=False)

    def __str__(self) -> str:
        if self.kind == "list":
            return f"list({self.params[0]})"
        if self.kind == "map":
            return f"map({self.params[0]}, {self.params[1]})"
        if self.kind == "optional":
            return f"optional_type({self.params[0]})"
        return self.kind


DYN: Final = Type("dyn")
INT: Final = Type("int")
UINT: Final = Type("uint")
DOUBLE: Final = Type("double")
BOOL: Final = Type("bool")
STRING: Final = Type("string")
BYTES: Final = Type("bytes")
NULL: Final = Type("null_type")
TIMESTAMP: Final = Type("google.protobuf.Timestamp")
DURATION: Final = Type("google.protobuf.Duration")
TYPE: Final = Type("type")
NUMBERS: Final = frozenset((INT, UINT, DOUBLE))


def list_of(element: Type, max_size: int | None = None) -> Type:
    return Type("list", (element,), max_size=max_size)


def map_of(key: Type, value: Type, max_size: int | None = None) -> Type:
    return Type("map", (key, value), max_size=max_size)


def sized(t: Type, max_size: int | None, json_min: int | None = None) -> Type:
    """`t` bounded to `max_size` (a string schema's maxLength, say)."""
    return Type(t.kind, t.params, t.fields, max_size, json_min if json_min is not None else t.json_min)


def optional_of(inner: Type) -> Type:
    return Type("optional", (inner,))


def object_type(name: str, fields: Mapping[str, Type]) -> Type:
    return Type(name, (), dict(fields))


def is_object(t: Type) -> bool:
    return t.fields is not None


def join(a: Type, b: Type) -> Type:
    """The type of a value that is either `a` or `b` (`null` joins anything)."""
    if a == b:
        return a
    if a == NULL:
        return b
    if b == NULL:
        return a
    return DYN
