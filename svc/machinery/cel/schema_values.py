"""`self` and `oldSelf` typed by a structural OpenAPI schema, as CRD validation rules see them.

Upstream turns an unstructured object into CEL values by its schema: strings of format
`date-time`/`date` become timestamps, `duration` durations and `byte` bytes, and property names
that are not CEL identifiers are escaped (`x-y` is `self.x__dash__y`). Everything else is used as
is. `converter(schema)` is built once per schema; it is None when the schema needs no conversion,
so most objects reach the rules untouched and uncopied.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from svc.machinery.cel.conversions import parse_timestamp
from svc.machinery.cel.openapi_duration import parse_openapi_duration
from svc.machinery.cel.parser import RESERVED
from svc.machinery.cel.values import CelError, MapList, SetList

Converter = Callable[[Any], Any]

# CEL's reserved words, plus the literals and `in`: property names that must be escaped.
RESERVED_PROPERTY_NAMES: Final = RESERVED | {"true", "false", "null", "in"}
_ESCAPABLE: Final = re.compile(r"[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*")
_IDENTIFIER: Final = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


def escape_property_name(name: str) -> str | None:
    """The name a rule uses for property `name`, or None when CEL cannot reach it."""
    if name in RESERVED_PROPERTY_NAMES:
        return f"__{name}__"
    if not _ESCAPABLE.fullmatch(name):
        return None
    escaped = name.replace("__", "__underscores__")
    escaped = escaped.replace(".", "__dot__").replace("-", "__dash__").replace("/", "__slash__")
    return escaped if _IDENTIFIER.fullmatch(escaped) else None


def _string_format(kind: str) -> Converter | None:
    def timestamp(value: Any) -> Any:
        return parse_timestamp(value) if type(value) is str else value

    def date(value: Any) -> Any:
        return parse_timestamp(f"{value}T00:00:00Z") if type(value) is str else value

    def duration(value: Any) -> Any:
        if type(value) is not str:
            return value
        try:
            return parse_openapi_duration(value)
        except CelError as err:
            raise CelError(f"Invalid duration {value}: {err}") from err

    def byte_string(value: Any) -> Any:
        if type(value) is not str:
            return value
        try:
            return base64.b64decode(value, validate=True)
        except binascii.Error as err:
            raise CelError(f"invalid base64 value: {err}") from err

    return {"date-time": timestamp, "date": date, "duration": duration, "byte": byte_string}.get(kind)


def converter(schema: Mapping[str, Any]) -> Converter | None:
    """A function giving CEL's view of a value of `schema`, or None when that view is the value."""
    if schema.get("x-kubernetes-int-or-string"):
        return None
    kind = schema.get("type")
    if kind == "string":
        fmt = schema.get("format")
        return _string_format(fmt) if isinstance(fmt, str) else None
    if kind == "array":
        items = schema.get("items")
        item = converter(items) if isinstance(items, Mapping) else None
        keyed = _keyed_list(schema)
        if keyed is not None:
            return lambda value: (
                keyed(value if item is None else [item(v) for v in value]) if type(value) is list else value
            )
        if item is None:
            return None
        return lambda value: [item(v) for v in value] if type(value) is list else value
    if kind == "object":
        return _object_converter(schema)
    return None


def _keyed_list(schema: Mapping[str, Any]) -> Converter | None:
    """The list class carrying upstream's set or map list semantics, per `x-kubernetes-list-type`."""
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "set":
        return SetList
    keys = schema.get("x-kubernetes-list-map-keys")
    if list_type == "map" and isinstance(keys, list) and all(isinstance(k, str) for k in keys):
        escaped = tuple(escape_property_name(k) or k for k in keys)
        return lambda items: MapList(items, escaped)
    return None


def _object_converter(schema: Mapping[str, Any]) -> Converter | None:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    fields: dict[str, tuple[str, Converter | None]] = {}
    for name, sub in properties.items():
        escaped = escape_property_name(name)
        if escaped is not None and isinstance(sub, Mapping):
            fields[name] = (escaped, converter(sub))
    additional = schema.get("additionalProperties")
    values = converter(additional) if isinstance(additional, Mapping) else None
    if values is None and all(escaped == name and sub is None for name, (escaped, sub) in fields.items()):
        return None

    def convert(value: Any) -> Any:
        if type(value) is not dict:
            return value
        out = {}
        for key, item in value.items():
            found = fields.get(key)
            if found is not None:
                escaped, sub = found
                out[escaped] = item if sub is None else sub(item)
            elif key not in properties:
                out[key] = item if values is None else values(item)
        return out

    return convert
