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
UTF8_MAX_BYTES: Final = 4
_SCALARS: Final = {"integer": types.INT, "number": types.DOUBLE, "boolean": types.BOOL}
# Kubernetes' cost estimator sizes a schema's values: numbers and booleans 0 (their comparisons
# are free), timestamps and durations by the longest text they take; and bounds list and map
# lengths by the shortest text an element takes (a date '"2006-01-02"', a duration '"0"').
_FORMAT_SIZES: Final = {"date-time": (32, 21), "date": (32, 12), "duration": (32, 3)}


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
        return types.sized(_SCALARS[kind], 0)
    if kind == "string":
        fmt = _text(schema.get("format"))
        found = _STRING_FORMATS.get(fmt, types.STRING)
        if found == types.STRING:
            return types.sized(found, _string_bytes(schema))
        if found == types.BYTES:
            return types.sized(found, _size(schema.get("maxLength")))
        longest, shortest = _FORMAT_SIZES.get(fmt, (None, None))
        return types.sized(found, longest, shortest)
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
    required = schema.get("required")
    json_min = 2
    if isinstance(required, list):
        for prop in required:
            if isinstance(prop, str) and prop in fields:
                json_min += len(prop) + 4 + (fields[prop].json_min or _type_json_min(fields[prop]))
    if schema.get("x-kubernetes-embedded-resource"):
        fields.setdefault("apiVersion", types.STRING)
        fields.setdefault("kind", types.STRING)
        fields.setdefault("metadata", types.object_type(f"{name}.metadata", _EMBEDDED_METADATA))
    return types.sized(types.object_type(name, fields), 0, json_min)


def _string_bytes(schema: Mapping[str, Any]) -> int | None:
    """The most bytes a string can take: maxLength characters of up to 4 UTF-8 bytes each, else the
    longest enum value's own length."""
    max_length = _size(schema.get("maxLength"))
    if max_length is not None:
        return max_length * UTF8_MAX_BYTES
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        return max(len(v.encode()) for v in enum)
    return None


def _type_json_min(t: Type) -> int:
    if t.kind in ("string", "bytes", "list", "map") or types.is_object(t):
        return 2
    return 4 if t == types.BOOL else 1


_EMBEDDED_METADATA: Final = {"name": types.STRING, "generateName": types.STRING}
