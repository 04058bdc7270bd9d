"""The structural view of a CRD version's schema: one node per place a value can sit.

Upstream turns `openAPIV3Schema` into a `Structural` tree before pruning, defaulting and serving
server-side apply: the type, the properties, `items` and `additionalProperties`, and the
`x-kubernetes-*` extensions, with the value validations (`allOf`, `enum`, `pattern`, ...) left aside.
Pruning and defaulting only need that tree; value validation reads the raw schema kept on each node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

NO_DEFAULT: Final[Any] = object()
"""Marks a node without `default` (a `default: null` is a value, which defaulting ignores)."""


@dataclass(frozen=True, eq=False)
class Structural:
    """One node of the tree; `schema` is the raw JSON schema the node was read from."""

    type: str = ""
    properties: Mapping[str, Structural] = field(default_factory=dict)
    items: Structural | None = None
    additional_properties: Structural | None = None
    additional_allowed: bool = False
    nullable: bool = False
    preserve_unknown: bool = False
    int_or_string: bool = False
    embedded_resource: bool = False
    default: Any = NO_DEFAULT
    list_type: str = ""
    list_map_keys: tuple[str, ...] = ()
    map_type: str = ""
    validations: tuple[Mapping[str, Any], ...] = ()
    schema: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    def child(self, name: str) -> Structural | None:
        """The node of object member `name`: a declared property, else the additionalProperties node."""
        found = self.properties.get(name)
        return found if found is not None else self.additional_properties

    def at(self, path: Sequence[str]) -> Structural | None:
        """The node at a path of member names; list items are passed through implicitly."""
        node: Structural | None = self
        for name in path:
            while node is not None and node.type == "array":
                node = node.items
            node = node.child(name) if node is not None else None
            if node is None:
                return None
        return node


def structural(schema: Any) -> Structural:
    """The tree of a raw schema; members of the wrong JSON type are read as absent (CRD validation
    refuses such schemas before any object is served with them)."""
    if not isinstance(schema, Mapping):
        return Structural()
    properties = schema.get("properties")
    items = schema.get("items")
    additional = schema.get("additionalProperties")
    keys = schema.get("x-kubernetes-list-map-keys")
    validations = schema.get("x-kubernetes-validations")
    return Structural(
        type=_text(schema.get("type")),
        properties={name: structural(sub) for name, sub in properties.items()}
        if isinstance(properties, Mapping)
        else {},
        items=structural(items) if isinstance(items, Mapping) else None,
        additional_properties=structural(additional) if isinstance(additional, Mapping) else None,
        additional_allowed=additional is True or isinstance(additional, Mapping),
        nullable=schema.get("nullable") is True,
        preserve_unknown=schema.get("x-kubernetes-preserve-unknown-fields") is True,
        int_or_string=schema.get("x-kubernetes-int-or-string") is True,
        embedded_resource=schema.get("x-kubernetes-embedded-resource") is True,
        default=schema.get("default", NO_DEFAULT),
        list_type=_text(schema.get("x-kubernetes-list-type")),
        list_map_keys=tuple(key for key in keys if isinstance(key, str)) if isinstance(keys, list) else (),
        map_type=_text(schema.get("x-kubernetes-map-type")),
        validations=tuple(rule for rule in validations if isinstance(rule, Mapping))
        if isinstance(validations, list)
        else (),
        schema=schema,
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
