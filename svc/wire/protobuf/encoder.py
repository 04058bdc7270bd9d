"""JSON-shaped dict -> protobuf bytes of an upstream message.

One closure per message, built on first use from the schema table. The loop walks the object's own
keys (an object sets a few of a message's many fields) and dispatches on a small field-kind code;
a length or small integer below 128 takes a precomputed `tag + byte` prefix. Fields are written in
the object's key order; protobuf readers accept any order.

Keys whose value is None are left out, as are `apiVersion` and `kind` on messages that are kinds
(list items and embedded objects carry them in JSON; protobuf has no field for them). Any other key
without a field is an error, as is a value of the wrong JSON type: the ProtobufError names the
field path ("spec.containers.ports.containerPort: expected an integer, got string").
"""

from __future__ import annotations

import binascii
from collections.abc import Callable

from svc.wire.protobuf.forms import form_of
from svc.wire.protobuf.schema import FieldSpec, schema
from svc.wire.protobuf.wire import (
    LENGTH_DELIMITED,
    VARINT,
    ProtobufError,
    json_type,
    prefix_table,
    tag,
    varint,
)

Encoder = Callable[[dict], bytes]
Append = Callable[[bytes], None]

_STRING, _MESSAGE, _REPEATED_MESSAGE, _INT32, _INT64, _BOOL, _REPEATED_STRING, _INLINE, _OTHER = range(9)
_INT_RANGES = {_INT32: range(-(1 << 31), 1 << 31), _INT64: range(-(1 << 63), 1 << 63)}
_TYPE_META_KEYS = frozenset({"apiVersion", "kind"})
_EXPECTED = {
    _STRING: "a string",
    _MESSAGE: "an object",
    _REPEATED_MESSAGE: "an array of objects",
    _INT32: "an integer",
    _INT64: "an integer",
    _BOOL: "a boolean",
    _REPEATED_STRING: "an array of strings",
}

_KEY_PREFIXES = prefix_table(tag(1, LENGTH_DELIMITED))
_VALUE_PREFIXES = prefix_table(tag(2, LENGTH_DELIMITED))

_encoders: dict[str, Encoder] = {}


class FieldError(ProtobufError):
    """A ProtobufError located at a field path inside the object."""

    def __init__(self, path: tuple[str, ...], problem: str) -> None:
        super().__init__(f"{'.'.join(path)}: {problem}")
        self.path, self.problem = path, problem


def _at(key: str, exc: ProtobufError) -> FieldError:
    if isinstance(exc, FieldError):
        return FieldError((key, *exc.path), exc.problem)
    return FieldError((key,), str(exc))


def _mismatch(kind: int, value: object) -> str:
    if kind in _INT_RANGES and type(value) is int:
        return f"value {value} is out of range"
    expected = _EXPECTED.get(kind, "another type")
    return f"expected {expected}, got {json_type(value)}"


def encoder(message: str) -> Encoder:
    """The encoder of a message (fully-qualified upstream name), which returns the message's bytes."""
    found = _encoders.get(message)
    if found is None:
        found = _build(message)
    return found


def _payload_encoder(type_: str) -> Encoder:
    """Payload bytes of a message-typed value: a special form or a plain message."""
    form = form_of(type_)
    return form.encode if form is not None else encoder(type_)


def _build(message: str) -> Encoder:
    fields: dict[str, tuple] = {}
    inline_encoders: list[tuple[bytes, Encoder]] = []
    ignored = _TYPE_META_KEYS if message in schema().kind_messages else frozenset()
    short_name = message.rsplit(".", 1)[1]

    def encode(obj: dict) -> bytes:
        parts: list[bytes] = []
        append = parts.append
        inline_parts: dict[int, dict] | None = None
        for key, value in obj.items():
            if value is None:
                continue
            spec = fields.get(key)
            if spec is None:
                if key in ignored:
                    continue
                raise FieldError((key,), f"unknown field in {short_name}")
            kind, prefixes, field_tag, sub = spec
            try:
                if kind == _STRING:
                    data = value.encode()
                    n = len(data)
                    append(prefixes[n] if n < 128 else field_tag + varint(n))
                    append(data)
                elif kind == _MESSAGE:
                    data = sub(value)
                    n = len(data)
                    append(prefixes[n] if n < 128 else field_tag + varint(n))
                    append(data)
                elif kind == _REPEATED_MESSAGE:
                    if type(value) is not list:
                        raise TypeError
                    for item in value:
                        data = sub(item)
                        n = len(data)
                        append(prefixes[n] if n < 128 else field_tag + varint(n))
                        append(data)
                elif kind in _INT_RANGES:
                    if type(value) is not int:
                        raise TypeError
                    if 0 <= value < 128:
                        append(prefixes[value])
                    elif value in _INT_RANGES[kind]:
                        append(field_tag + varint(value))
                    else:
                        raise ValueError
                elif kind == _BOOL:
                    if value is not True and value is not False:
                        raise TypeError
                    append(prefixes[value])
                elif kind == _REPEATED_STRING:
                    if type(value) is not list:
                        raise TypeError
                    for item in value:
                        data = item.encode()
                        n = len(data)
                        append(prefixes[n] if n < 128 else field_tag + varint(n))
                        append(data)
                elif kind == _INLINE:
                    if inline_parts is None:
                        inline_parts = {}
                    inline_parts.setdefault(sub, {})[key] = value
                else:
                    sub(value, append)
            except ProtobufError as exc:
                raise _at(key, exc) from None
            except (AttributeError, TypeError, ValueError):
                raise FieldError((key,), _mismatch(kind, value)) from None
        if inline_parts:
            # The embedded struct's keys are this object's keys: its errors need no extra path.
            for index, part in inline_parts.items():
                inline_tag, inline_encode = inline_encoders[index]
                data = inline_encode(part)
                append(inline_tag + varint(len(data)))
                append(data)
        return b"".join(parts)

    _encoders[message] = encode  # before the fields: messages may refer to themselves
    for field in schema().messages[message]:
        if field.inline:
            inline_encoders.append((tag(field.number, LENGTH_DELIMITED), encoder(field.type)))
            for key in json_keys(field.type):
                fields[key] = (_INLINE, None, None, len(inline_encoders) - 1)
        else:
            fields[field.json_name] = _field_spec(field)
    return encode


def json_keys(message: str) -> list[str]:
    """The JSON keys a message's fields occupy, inline fields flattened."""
    keys: list[str] = []
    for field in schema().messages[message]:
        keys.extend(json_keys(field.type) if field.inline else [field.json_name])
    return keys


def _field_spec(field: FieldSpec) -> tuple:
    if field.label == "map":
        field_tag = tag(field.number, LENGTH_DELIMITED)
        return (_OTHER, None, field_tag, _map_encoder(field_tag, field.type))
    if field.type in ("int32", "int64", "bool"):
        field_tag = tag(field.number, VARINT)
        kind = {"int32": _INT32, "int64": _INT64, "bool": _BOOL}[field.type]
        if field.label == "repeated":
            return (_OTHER, None, field_tag, _repeated_varint_encoder(field_tag, kind))
        return (kind, prefix_table(field_tag), field_tag, None)
    field_tag = tag(field.number, LENGTH_DELIMITED)
    if field.type == "string":
        kind = _REPEATED_STRING if field.label == "repeated" else _STRING
        return (kind, prefix_table(field_tag), field_tag, None)
    if field.type == "bytes":
        return (_OTHER, None, field_tag, _bytes_encoder(field_tag))
    kind = _REPEATED_MESSAGE if field.label == "repeated" else _MESSAGE
    return (kind, prefix_table(field_tag), field_tag, _payload_encoder(field.type))


def _base64(value: object) -> bytes:
    """[]byte is base64 in JSON, as Go's encoding/json writes it."""
    if not isinstance(value, str):
        raise ProtobufError(f"expected a base64 string, got {json_type(value)}")
    try:
        return binascii.a2b_base64(value, strict_mode=True)
    except binascii.Error as exc:
        raise ProtobufError(f"illegal base64 data: {exc}") from None


def _bytes_encoder(field_tag: bytes) -> Callable[[object, Append], None]:
    def encode(value: object, append: Append) -> None:
        data = _base64(value)
        append(field_tag + varint(len(data)))
        append(data)

    return encode


def _repeated_varint_encoder(field_tag: bytes, kind: int) -> Callable[[object, Append], None]:
    """Unpacked, as proto2 and upstream's generated code write repeated scalars."""

    def encode(values: object, append: Append) -> None:
        if type(values) is not list:
            raise ProtobufError(f"expected an array, got {json_type(values)}")
        for value in values:
            if kind == _BOOL and type(value) is not bool:
                raise ProtobufError(f"expected an array of booleans, got an item {value!r}")
            if kind != _BOOL and (type(value) is not int or value not in _INT_RANGES[kind]):
                raise ProtobufError(f"expected an array of integers, got an item {value!r}")
            append(field_tag + varint(value))

    return encode


def _map_encoder(field_tag: bytes, value_type: str) -> Callable[[object, Append], None]:
    """A map is a repeated entry message {key=1, value=2}."""
    if value_type == "string":
        encode_value: Callable[[object], bytes] = str.encode
    elif value_type == "bytes":
        encode_value = _base64
    else:
        encode_value = _payload_encoder(value_type)
    entry_prefixes = prefix_table(field_tag)

    def encode(mapping: object, append: Append) -> None:
        if type(mapping) is not dict:
            raise ProtobufError(f"expected an object, got {json_type(mapping)}")
        for key, value in mapping.items():
            if value is None:
                continue
            key_data = key.encode()
            try:
                value_data = encode_value(value)
            except ProtobufError as exc:
                raise _at(key, exc) from None
            except TypeError:
                raise FieldError((key,), _mismatch(_STRING, value)) from None
            key_n, value_n = len(key_data), len(value_data)
            if key_n < 128 and value_n < 128:
                size = key_n + value_n + 4
                append(entry_prefixes[size] if size < 128 else field_tag + varint(size))
                append(_KEY_PREFIXES[key_n])
                append(key_data)
                append(_VALUE_PREFIXES[value_n])
            else:
                key_head, value_head = b"\x0a" + varint(key_n), b"\x12" + varint(value_n)
                append(field_tag + varint(len(key_head) + key_n + len(value_head) + value_n))
                append(key_head)
                append(key_data)
                append(value_head)
            append(value_data)

    return encode
