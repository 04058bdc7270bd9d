"""How server-side apply sees each position of an object: scalar, map (granular or atomic), or list
(atomic, set, or map keyed by some fields).

Upstream converts the OpenAPI models once into structured-merge-diff schemas; this is the same reading,
done lazily over `Schema` views:
- lists: `x-kubernetes-list-type` wins; otherwise patch strategy `merge` (or `merge,retainKeys`) makes an
  associative list, keyed by the patch merge key when there is one and a set otherwise; anything else
  is atomic;
- maps and structs are granular unless `x-kubernetes-map-type: atomic` (on the type or at the field);
- `RawExtension` is an atomic untyped value; a schema-less value (`type` absent) and unknown types are
  "deduced": maps granular all the way down, lists atomic;
- int-or-string, quantities and formatted strings are untyped scalars.
"""

from __future__ import annotations

import enum
from typing import Any

from svc.api.schemas import Schema

_RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"

# Key defaults that upstream's OpenAPI carries (`+default=`) but the packaged schemas lack; they make
# a port without `protocol` the same map-list item as one with `protocol: TCP`.
_KEY_DEFAULTS = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
}


class Kind(enum.Enum):
    SCALAR = "scalar"
    MAP = "map"
    LIST = "list"
    UNTYPED = "untyped"  # any JSON value, handled atomically
    DEDUCED = "deduced"  # any JSON value; maps granular, lists atomic


class Scalar(enum.Enum):
    NUMERIC = "numeric"
    STRING = "string"
    BOOLEAN = "boolean"
    UNTYPED = "untyped"


class Shape:
    """One schema position as server-side apply understands it."""

    __slots__ = (
        "_by_value",
        "_children",
        "_declared",
        "associative",
        "atomic",
        "extra_fields",
        "keys",
        "kind",
        "scalar",
        "schema",
    )

    def __init__(
        self,
        kind: Kind,
        schema: Schema | None = None,
        *,
        scalar: Scalar = Scalar.UNTYPED,
        atomic: bool = False,
        associative: bool = False,
        keys: tuple[str, ...] = (),
        extra_fields: Shape | None = None,
    ) -> None:
        self.kind = kind
        self.schema = schema
        self.scalar = scalar
        self.atomic = atomic
        self.associative = associative
        self.keys = keys
        self.extra_fields = extra_fields  # shape of map entries and of undeclared struct fields
        self._children: dict[str, Shape] = {}
        self._by_value = kind in (Kind.UNTYPED, Kind.DEDUCED)
        self._declared: dict[str, Schema] | None = None

    def __repr__(self) -> str:
        return f"Shape({self.kind.value}, {self.schema!r})"

    @property
    def declared(self) -> dict[str, Schema]:
        """The declared (struct) fields; empty for plain maps."""
        if self._declared is None:
            plain = self.kind is not Kind.MAP or self.schema is None or self.schema.type != "object"
            self._declared = {} if plain or self.schema is None else self.schema.properties
        return self._declared

    def field(self, name: str) -> Shape | None:
        """Shape of entry `name`; None when a struct does not declare it and takes no extra fields."""
        cached = self._children.get(name)
        if cached is not None:
            return cached
        declared = self.declared
        if name not in declared:
            return self.extra_fields
        assert self.schema is not None
        shape = self._children[name] = shape_of(declared[name], self.schema.raw["properties"][name])
        return shape

    def is_declared(self, name: str) -> bool:
        return name in self.declared

    @property
    def element(self) -> Shape:
        """Shape of the items of a list."""
        if self.kind is not Kind.LIST or self.schema is None or self.schema.items is None:
            return UNTYPED
        cached = self._children.get("[]")
        if cached is None:
            cached = self._children["[]"] = shape_of(self.schema.items, self.schema.raw["items"])
        return cached

    def key_default(self, name: str) -> Any:
        """Default of key field `name` of a map list's items, or None."""
        item = self.element
        if item.schema is None:
            return None
        declared = item.schema.field(name)
        if declared is not None and "default" in declared.raw:
            return declared.raw["default"]
        return _KEY_DEFAULTS.get((item.schema.name, name))

    def resolve(self, value: Any) -> Kind:
        """The kind that handles `value` here (untyped positions take the value's own form)."""
        if self._by_value:
            if isinstance(value, dict):
                return Kind.MAP
            if isinstance(value, list):
                return Kind.LIST
            return Kind.SCALAR
        return self.kind

    def as_resolved(self, kind: Kind) -> Shape:
        """The shape to walk `kind` values with (for untyped positions, the deduced map or list)."""
        if self.kind is Kind.DEDUCED:
            return _DEDUCED_MAP if kind is Kind.MAP else _UNTYPED_LIST if kind is Kind.LIST else self
        if self.kind is Kind.UNTYPED:
            return _UNTYPED_MAP if kind is Kind.MAP else _UNTYPED_LIST if kind is Kind.LIST else self
        return self


def shape_of(schema: Schema | None, site: dict[str, Any] | None = None) -> Shape:
    """The shape of a schema position; `site` is the unresolved raw node (it may override map-type).

    Shapes are cached per schema node, so each walk reuses the resolved children of the last one.
    """
    if schema is None:
        return DEDUCED
    site_map_type = (site or {}).get("x-kubernetes-map-type", "")
    cache_key = (id(schema.raw), site_map_type)
    cached = _CACHE.get(cache_key)
    if cached is not None and cached[0] is schema.raw:
        return cached[1]
    shape = _build(schema, site_map_type)
    _CACHE[cache_key] = (schema.raw, shape)
    return shape


def _build(schema: Schema, site_map_type: str) -> Shape:
    if schema.name == _RAW_EXTENSION:
        return UNTYPED
    kind = schema.type
    if kind in ("object", "map"):
        map_type = site_map_type or schema.map_type
        extra: Shape | None = None
        if kind == "map":
            extra = shape_of(schema.values, schema.raw.get("additionalProperties"))
        elif schema.preserves_unknown_fields:
            extra = DEDUCED
        return Shape(Kind.MAP, schema, atomic=map_type == "atomic", extra_fields=extra)
    if kind == "array":
        return _list_shape(schema)
    if kind == "any":
        declared = schema.raw.get("type")
        if declared == "object" or (isinstance(declared, list) and "object" in declared):
            return Shape(Kind.MAP, schema, extra_fields=DEDUCED if schema.preserves_unknown_fields else None)
        return DEDUCED
    return Shape(Kind.SCALAR, schema, scalar=_scalar(schema, kind))


def _list_shape(schema: Schema) -> Shape:
    list_type = schema.list_type
    if list_type:
        if list_type == "map":
            return Shape(Kind.LIST, schema, associative=True, keys=tuple(schema.list_map_keys))
        return Shape(Kind.LIST, schema, associative=list_type == "set", atomic=list_type != "set")
    if schema.patch_strategy in ("merge", "merge,retainKeys"):
        keys = (schema.patch_merge_key,) if schema.patch_merge_key else ()
        return Shape(Kind.LIST, schema, associative=True, keys=keys)
    return Shape(Kind.LIST, schema, atomic=True)


def _scalar(schema: Schema, kind: str) -> Scalar:
    if schema.name == _QUANTITY:
        return Scalar.UNTYPED
    if kind in ("integer", "number"):
        return Scalar.NUMERIC
    if kind == "boolean":
        return Scalar.BOOLEAN
    if kind == "string" and schema.raw.get("format", "") in ("", "byte"):
        return Scalar.STRING
    return Scalar.UNTYPED


_CACHE: dict[tuple[int, str], tuple[dict[str, Any], Shape]] = {}
DEDUCED = Shape(Kind.DEDUCED)
UNTYPED = Shape(Kind.UNTYPED)
_DEDUCED_MAP = Shape(Kind.MAP, extra_fields=DEDUCED)
_UNTYPED_MAP = Shape(Kind.MAP, atomic=True, extra_fields=UNTYPED)
_UNTYPED_LIST = Shape(Kind.LIST, atomic=True)
