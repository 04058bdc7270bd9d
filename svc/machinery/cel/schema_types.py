"""The static CEL type of a structural OpenAPI schema, as upstream declares `self` for a CRD rule.

Formats `date-time`/`date` are timestamps, `duration` durations and `byte` bytes; int-or-string
and schemaless preserved fields are `dyn`; objects with `properties` are object types whose fields
carry the escaped names rules use; objects with `additionalProperties` are maps of strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from svc.machinery.cel import types
from svc.machinery.cel.schema_values import escape_property_name
from svc.machinery.cel.types import Type

_STRING_FORMATS: Final = {
    "date-time": types.TIMESTAMP,
    "date": types.TIMESTAMP,
    "duration": types.DURATION,
    "byte": types.BYTES,
}
_SCALARS: Final = {"integer": types.INT, "number": types.DOUBLE, "boolean": types.BOOL}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _size(value: Any) -> int | None:
    """A maxLength/maxItems/maxProperties; another JSON type (refused by CRD validation) is no limit."""
    return value if type(value) is int else None


def schema_type(schema: Mapping[str, Any], name: str = "object") -> Type:
    """The type of values of `schema`; `name` names object types in error messages."""
    if schema.get("x-kubernetes-int-or-string"):
        return types.DYN
    kind = _text(schema.get("type"))
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "string":
        found = _STRING_FORMATS.get(_text(schema.get("format")), types.STRING)
        return types.sized(found, _size(schema.get("maxLength"))) if found in (types.STRING, types.BYTES) else found
    if kind == "array":
        items = schema.get("items")
        element = schema_type(items, f"{name}.@idx") if isinstance(items, Mapping) else types.DYN
        return types.list_of(element, _size(schema.get("maxItems")))
    if kind == "object":
        return _object(schema, name)
    return types.DYN


def _object(schema: Mapping[str, Any], name: str) -> Type:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    additional = schema.get("additionalProperties")
    if not properties:
        if isinstance(additional, Mapping):
            value = schema_type(additional, f"{name}.@elem")
            return types.map_of(types.STRING, value, _size(schema.get("maxProperties")))
        if schema.get("x-kubernetes-preserve-unknown-fields") or additional is True:
            return types.DYN
    fields = {}
    for prop, sub in properties.items():
        escaped = escape_property_name(prop)
        if escaped is not None and isinstance(sub, Mapping):
            fields[escaped] = schema_type(sub, f"{name}.{prop}")
    if schema.get("x-kubernetes-embedded-resource"):
        fields.setdefault("apiVersion", types.STRING)
        fields.setdefault("kind", types.STRING)
        fields.setdefault("metadata", types.object_type(f"{name}.metadata", _EMBEDDED_METADATA))
    return types.object_type(name, fields)


_EMBEDDED_METADATA: Final = {"name": types.STRING, "generateName": types.STRING}
