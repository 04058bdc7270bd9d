"""`/openapi/v2` as Protobuf: the gnostic `openapi_v2.Document` message upstream serves.

Upstream parses its JSON document with gnostic (`openapi_v2.ParseDocument`) and marshals the result,
so this module follows gnostic's mapping from JSON to messages: JSON objects become ordered
`Named*` (name, value) pairs, `x-` keys become `vendor_extension` entries whose value is the YAML text
of the JSON value (clients such as kubectl parse that YAML back), `default`/`enum`/`example` values are
`Any` messages holding YAML too, and the `oneof` wrappers (parameters, responses, schema items,
`additionalProperties`) pick their alternative from the JSON shape. Fields are written in field-number
order and zero values are left out, as Go's marshaller does for proto3 messages.

The field numbers are gnostic's `OpenAPIv2.proto` (package `openapi.v2`), reduced to the messages a
Kubernetes document uses. Keys gnostic does not know would make upstream's conversion fail; here they
are dropped, so the Protobuf document never fails to build.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import yaml

from svc.wire.protobuf.wire import LENGTH_DELIMITED, VARINT, length_prefixed, tag, varint

MEDIA_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
DEPRECATED_MEDIA_TYPE = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

_FIXED64 = 1
_EXTENSION = "x-"

# message -> JSON key -> (field number, kind). A kind is a scalar ("string", "bool", "int64", "double"),
# "strings" (repeated string), "any" / "anys" (YAML held in `Any`), a message name, or "[Message]" for a
# repeated message. "x-" gives the number of the message's repeated `vendor_extension` field.
_MESSAGES: dict[str, dict[str, tuple[int, str]]] = {
    "Document": {
        "swagger": (1, "string"),
        "info": (2, "Info"),
        "host": (3, "string"),
        "basePath": (4, "string"),
        "schemes": (5, "strings"),
        "consumes": (6, "strings"),
        "produces": (7, "strings"),
        "paths": (8, "Paths"),
        "definitions": (9, "Definitions"),
        "parameters": (10, "ParameterDefinitions"),
        "responses": (11, "ResponseDefinitions"),
        "security": (12, "[SecurityRequirement]"),
        "tags": (14, "[Tag]"),
        "externalDocs": (15, "ExternalDocs"),
        _EXTENSION: (16, ""),
    },
    "Info": {
        "title": (1, "string"),
        "version": (2, "string"),
        "description": (3, "string"),
        "termsOfService": (4, "string"),
        "contact": (5, "Contact"),
        "license": (6, "License"),
        _EXTENSION: (7, ""),
    },
    "Contact": {"name": (1, "string"), "url": (2, "string"), "email": (3, "string"), _EXTENSION: (4, "")},
    "License": {"name": (1, "string"), "url": (2, "string"), _EXTENSION: (3, "")},
    "ExternalDocs": {"description": (1, "string"), "url": (2, "string"), _EXTENSION: (3, "")},
    "Tag": {
        "name": (1, "string"),
        "description": (2, "string"),
        "externalDocs": (3, "ExternalDocs"),
        _EXTENSION: (4, ""),
    },
    "PathItem": {
        "$ref": (1, "string"),
        "get": (2, "Operation"),
        "put": (3, "Operation"),
        "post": (4, "Operation"),
        "delete": (5, "Operation"),
        "options": (6, "Operation"),
        "head": (7, "Operation"),
        "patch": (8, "Operation"),
        "parameters": (9, "[ParametersItem]"),
        _EXTENSION: (10, ""),
    },
    "Operation": {
        "tags": (1, "strings"),
        "summary": (2, "string"),
        "description": (3, "string"),
        "externalDocs": (4, "ExternalDocs"),
        "operationId": (5, "string"),
        "produces": (6, "strings"),
        "consumes": (7, "strings"),
        "parameters": (8, "[ParametersItem]"),
        "responses": (9, "Responses"),
        "schemes": (10, "strings"),
        "deprecated": (11, "bool"),
        "security": (12, "[SecurityRequirement]"),
        _EXTENSION: (13, ""),
    },
    "BodyParameter": {
        "description": (1, "string"),
        "name": (2, "string"),
        "in": (3, "string"),
        "required": (4, "bool"),
        "schema": (5, "Schema"),
        _EXTENSION: (6, ""),
    },
    "JsonReference": {"$ref": (1, "string"), "description": (2, "string")},
    "Response": {
        "description": (1, "string"),
        "schema": (2, "SchemaItem"),
        "headers": (3, "Headers"),
        "examples": (4, "Examples"),
        _EXTENSION: (5, ""),
    },
    "Schema": {
        "$ref": (1, "string"),
        "format": (2, "string"),
        "title": (3, "string"),
        "description": (4, "string"),
        "default": (5, "any"),
        "multipleOf": (6, "double"),
        "maximum": (7, "double"),
        "exclusiveMaximum": (8, "bool"),
        "minimum": (9, "double"),
        "exclusiveMinimum": (10, "bool"),
        "maxLength": (11, "int64"),
        "minLength": (12, "int64"),
        "pattern": (13, "string"),
        "maxItems": (14, "int64"),
        "minItems": (15, "int64"),
        "uniqueItems": (16, "bool"),
        "maxProperties": (17, "int64"),
        "minProperties": (18, "int64"),
        "required": (19, "strings"),
        "enum": (20, "anys"),
        "additionalProperties": (21, "AdditionalPropertiesItem"),
        "type": (22, "TypeItem"),
        "items": (23, "ItemsItem"),
        "allOf": (24, "[Schema]"),
        "properties": (25, "Properties"),
        "discriminator": (26, "string"),
        "readOnly": (27, "bool"),
        "xml": (28, "Xml"),
        "externalDocs": (29, "ExternalDocs"),
        "example": (30, "any"),
        _EXTENSION: (31, ""),
    },
    "FileSchema": {
        "format": (1, "string"),
        "title": (2, "string"),
        "description": (3, "string"),
        "default": (4, "any"),
        "required": (5, "strings"),
        "type": (6, "string"),
        "readOnly": (7, "bool"),
        "externalDocs": (8, "ExternalDocs"),
        "example": (9, "any"),
        _EXTENSION: (10, ""),
    },
    "Xml": {
        "name": (1, "string"),
        "namespace": (2, "string"),
        "prefix": (3, "string"),
        "attribute": (4, "bool"),
        "wrapped": (5, "bool"),
        _EXTENSION: (6, ""),
    },
    "Header": {
        "type": (1, "string"),
        "format": (2, "string"),
        "items": (3, "PrimitivesItems"),
        "collectionFormat": (4, "string"),
        "default": (5, "any"),
        "maximum": (6, "double"),
        "exclusiveMaximum": (7, "bool"),
        "minimum": (8, "double"),
        "exclusiveMinimum": (9, "bool"),
        "maxLength": (10, "int64"),
        "minLength": (11, "int64"),
        "pattern": (12, "string"),
        "maxItems": (13, "int64"),
        "minItems": (14, "int64"),
        "uniqueItems": (15, "bool"),
        "enum": (16, "anys"),
        "multipleOf": (17, "double"),
        "description": (18, "string"),
        _EXTENSION: (19, ""),
    },
}


def _parameter_fields(*, allow_empty: bool) -> dict[str, tuple[int, str]]:
    """The non-body parameter sub-schemas share one layout after their leading fields."""
    leading = ["required", "in", "description", "name"]
    if allow_empty:
        leading.append("allowEmptyValue")
    kinds = {"required": "bool", "allowEmptyValue": "bool"}
    fields = {key: (number, kinds.get(key, "string")) for number, key in enumerate(leading, 1)}
    shared = (
        ("type", "string"),
        ("format", "string"),
        ("items", "PrimitivesItems"),
        ("collectionFormat", "string"),
        ("default", "any"),
        ("maximum", "double"),
        ("exclusiveMaximum", "bool"),
        ("minimum", "double"),
        ("exclusiveMinimum", "bool"),
        ("maxLength", "int64"),
        ("minLength", "int64"),
        ("pattern", "string"),
        ("maxItems", "int64"),
        ("minItems", "int64"),
        ("uniqueItems", "bool"),
        ("enum", "anys"),
        ("multipleOf", "double"),
    )
    for offset, (key, kind) in enumerate(shared, len(fields) + 1):
        fields[key] = (offset, kind)
    fields[_EXTENSION] = (len(fields) + 1, "")
    return fields


_MESSAGES["QueryParameterSubSchema"] = _parameter_fields(allow_empty=True)
_MESSAGES["FormDataParameterSubSchema"] = _parameter_fields(allow_empty=True)
_MESSAGES["HeaderParameterSubSchema"] = _parameter_fields(allow_empty=False)
_MESSAGES["PathParameterSubSchema"] = _parameter_fields(allow_empty=False)
# PrimitivesItems is Header without `description` (18): same numbers 1-17, vendor extensions at 18.
_MESSAGES["PrimitivesItems"] = {
    key: value for key, value in _MESSAGES["Header"].items() if key not in ("description", _EXTENSION)
} | {_EXTENSION: (18, "")}

_NON_BODY = {"header": 1, "formData": 2, "query": 3, "path": 4}
_NON_BODY_MESSAGES = {
    "header": "HeaderParameterSubSchema",
    "formData": "FormDataParameterSubSchema",
    "query": "QueryParameterSubSchema",
    "path": "PathParameterSubSchema",
}


def _yaml(value: Any) -> str:
    """YAML text of a JSON value, as gnostic stores it in `Any.yaml` (no document end marker)."""
    written = yaml.dump(value, Dumper=yaml.CSafeDumper, default_flow_style=False, sort_keys=False, width=1 << 30)
    return written.removesuffix("...\n")


def _field(out: list[tuple[int, bytes]], number: int, payload: bytes) -> None:
    out.append((number, tag(number, LENGTH_DELIMITED) + length_prefixed(payload)))


def _any(value: Any) -> bytes:
    return _fields([(2, tag(2, LENGTH_DELIMITED) + length_prefixed(_yaml(value).encode()))])


def _named(name: str, value: bytes) -> bytes:
    """A `Named*` pair: name 1, value 2."""
    out: list[tuple[int, bytes]] = []
    if name:
        _field(out, 1, name.encode())
    _field(out, 2, value)
    return _fields(out)


def _fields(out: list[tuple[int, bytes]]) -> bytes:
    """Fields in number order (stable, so repeated fields keep the document's order)."""
    return b"".join(encoded for _, encoded in sorted(out, key=lambda field: field[0]))


def _scalar(out: list[tuple[int, bytes]], number: int, kind: str, value: Any) -> None:
    if kind == "string" and isinstance(value, str) and value:
        _field(out, number, value.encode())
    elif kind == "strings" and isinstance(value, list):
        for item in value:
            if isinstance(item, str):
                _field(out, number, item.encode())
    elif kind == "bool" and value is True:
        out.append((number, tag(number, VARINT) + b"\x01"))
    elif kind == "int64" and isinstance(value, int) and not isinstance(value, bool) and value:
        out.append((number, tag(number, VARINT) + varint(value)))
    elif kind == "double" and isinstance(value, int | float) and not isinstance(value, bool) and value:
        out.append((number, tag(number, _FIXED64) + struct.pack("<d", float(value))))
    elif kind == "any":
        _field(out, number, _any(value))
    elif kind == "anys" and isinstance(value, list):
        for item in value:
            _field(out, number, _any(item))


def message(name: str, value: Any) -> bytes:
    """The encoding of one JSON value as the gnostic message `name`."""
    special = _SPECIAL.get(name)
    if special is not None:
        return special(value)
    if not isinstance(value, dict):
        return b""
    fields = _MESSAGES[name]
    out: list[tuple[int, bytes]] = []
    for key, item in value.items():
        if key.startswith(_EXTENSION) and _EXTENSION in fields:
            _field(out, fields[_EXTENSION][0], _named(key, _any(item)))
            continue
        if key not in fields:
            continue
        number, kind = fields[key]
        if kind.startswith("["):
            for element in item if isinstance(item, list) else ():
                _field(out, number, message(kind[1:-1], element))
        elif kind[:1].isupper():
            _field(out, number, message(kind, item))
        else:
            _scalar(out, number, kind, item)
    return _fields(out)


def _named_map(value_message: str, *, number: int = 1) -> Callable[[Any], bytes]:
    """An object of named values: repeated `Named<value_message>` at `number`, in the document's order."""

    def encode(value: Any) -> bytes:
        if not isinstance(value, dict):
            return b""
        out: list[tuple[int, bytes]] = []
        for key, item in value.items():
            _field(out, number, _named(key, message(value_message, item)))
        return _fields(out)

    return encode


def _keyed_map(
    value_message: str, number: int, extension: int, matches: Callable[[str], bool]
) -> Callable[[Any], bytes]:
    """Paths and Responses: named entries whose keys match, vendor extensions for `x-` keys."""

    def encode(value: Any) -> bytes:
        if not isinstance(value, dict):
            return b""
        out: list[tuple[int, bytes]] = []
        for key, item in value.items():
            if key.startswith(_EXTENSION):
                _field(out, extension, _named(key, _any(item)))
            elif matches(key):
                _field(out, number, _named(key, message(value_message, item)))
        return _fields(out)

    return encode


def _reference_or(alternative: str) -> Callable[[Any], bytes]:
    """A `oneof` of a message (field 1) or a JSON reference (field 2), chosen by a `$ref` key."""

    def encode(value: Any) -> bytes:
        if isinstance(value, dict) and "$ref" in value:
            return _fields([(2, tag(2, LENGTH_DELIMITED) + length_prefixed(message("JsonReference", value)))])
        return _fields([(1, tag(1, LENGTH_DELIMITED) + length_prefixed(message(alternative, value)))])

    return encode


def _parameter(value: Any) -> bytes:
    """Body parameters (field 1), else the non-body sub-schema named by `in` (field 2)."""
    location = value.get("in") if isinstance(value, dict) else None
    if location == "body":
        return _one_of(1, message("BodyParameter", value))
    if location not in _NON_BODY:
        return b""
    return _one_of(2, _one_of(_NON_BODY[location], message(_NON_BODY_MESSAGES[location], value)))


def _one_of(number: int, payload: bytes) -> bytes:
    return tag(number, LENGTH_DELIMITED) + length_prefixed(payload)


def _schema_item(value: Any) -> bytes:
    file = isinstance(value, dict) and value.get("type") == "file"
    return _one_of(2, message("FileSchema", value)) if file else _one_of(1, message("Schema", value))


def _additional_properties(value: Any) -> bytes:
    if isinstance(value, bool):
        return tag(2, VARINT) + b"\x01" if value else tag(2, VARINT) + b"\x00"
    return _one_of(1, message("Schema", value))


def _type_item(value: Any) -> bytes:
    values = value if isinstance(value, list) else [value]
    return b"".join(_one_of(1, item.encode()) for item in values if isinstance(item, str))


def _items_item(value: Any) -> bytes:
    schemas = value if isinstance(value, list) else [value]
    return b"".join(_one_of(1, message("Schema", schema)) for schema in schemas)


def _security_requirement(value: Any) -> bytes:
    if not isinstance(value, dict):
        return b""
    out: list[tuple[int, bytes]] = []
    for key, scopes in value.items():
        array = b"".join(_one_of(1, scope.encode()) for scope in scopes or () if isinstance(scope, str))
        _field(out, 1, _named(key, array))
    return _fields(out)


_SPECIAL: dict[str, Callable[[Any], bytes]] = {
    "Paths": _keyed_map("PathItem", 2, 1, lambda key: key.startswith("/")),
    "Responses": _keyed_map("ResponseValue", 1, 2, lambda key: key == "default" or (len(key) == 3 and key.isdigit())),
    "Definitions": _named_map("Schema"),
    "Properties": _named_map("Schema"),
    "ParameterDefinitions": _named_map("Parameter"),
    "ResponseDefinitions": _named_map("Response"),
    "Headers": _named_map("Header"),
    "Examples": lambda value: b"".join(
        _one_of(1, _named(key, _any(item))) for key, item in (value.items() if isinstance(value, dict) else ())
    ),
    "ParametersItem": _reference_or("Parameter"),
    "ResponseValue": _reference_or("Response"),
    "Parameter": _parameter,
    "SchemaItem": _schema_item,
    "AdditionalPropertiesItem": _additional_properties,
    "TypeItem": _type_item,
    "ItemsItem": _items_item,
    "SecurityRequirement": _security_requirement,
}


def document(swagger: dict[str, Any]) -> bytes:
    """The `openapi_v2.Document` encoding of a Swagger 2.0 document given as parsed JSON."""
    return message("Document", swagger)
