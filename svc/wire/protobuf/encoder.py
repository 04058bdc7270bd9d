"""JSON-shaped dict -> protobuf bytes of an upstream message.

One writer per message, built on first use from the schema table. It compiles code per shape of the
objects it meets (field_code.py). A length or small integer below 128 takes a precomputed
`tag + byte` prefix. Fields are written in the object's key order; protobuf readers accept any
order. A message is written into its parent's buffer and its length inserted in front afterwards,
which costs less than a bytes object per message joined into its parent's. Inside one list, equal
message values are encoded once (memo.py).

Keys whose value is None are left out, as are `apiVersion` and `kind` on messages that are kinds
(list items and embedded objects carry them in JSON; protobuf has no field for them). Any other key
without a field is an error, as is a value of the wrong JSON type: the ProtobufError names the
field path ("spec.containers.ports.containerPort: expected an integer, got string").
"""

from __future__ import annotations

import binascii
from collections.abc import Callable

from svc.wire.protobuf.field_code import (
    BOOL,
    FORM,
    INT32,
    INT64,
    INT_RANGES,
    MESSAGE,
    OTHER,
    REPEATED_FORM,
    REPEATED_MESSAGE,
    REPEATED_STRING,
    STRING,
    FieldError,
    FieldTable,
    at,
    compile_shape,
    mismatch,
)
from svc.wire.protobuf.forms import form_of
from svc.wire.protobuf.schema import FieldSpec, schema
from svc.wire.protobuf.wire import (
    LENGTH_DELIMITED,
    VARINT,
    ProtobufError,
    Writer,
    json_type,
    prefix_table,
    tag,
    varint,
)

Encoder = Callable[[dict], bytes]

_TYPE_META_KEYS = frozenset({"apiVersion", "kind"})
_KEY_PREFIXES = prefix_table(tag(1, LENGTH_DELIMITED))
_VALUE_PREFIXES = prefix_table(tag(2, LENGTH_DELIMITED))

_encoders: dict[str, Encoder] = {}
_writers: dict[str, Writer] = {}
# Shapes compiled per message; objects of further shapes (only objects built to vary) are written key by key.
_SHAPE_LIMIT = 256


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
    write = writer(message)

    def encode(obj: dict) -> bytes:
        buf = bytearray()
        write(obj, buf)
        return bytes(buf)

    _encoders[message] = encode
    return encode


def writer(message: str) -> Writer:
    """The writer of a message: it appends the message's bytes (without tag or length) to a buffer."""
    found = _writers.get(message)
    if found is None:
        found = _build_writer(message)
    return found


def _build_writer(message: str) -> Writer:
    """A writer that compiles code per shape of the objects it meets (field_code.py)."""
    fields: FieldTable = {}
    inline_writers: dict[str, tuple[bytes, Writer]] = {}  # inline key -> (tag, writer) of its struct
    ignored = _TYPE_META_KEYS if message in schema().kind_messages else frozenset()
    unknown = f"unknown field in {message.rsplit('.', 1)[1]}"
    shapes: dict[tuple, Writer] = {}
    singles: dict[str, Writer] = {}  # per key, the writer of objects of that key alone

    def write(obj: dict, buf: bytearray) -> None:
        if type(obj) is not dict:
            raise TypeError
        found = shapes.get(tuple(obj))
        if found is None:
            if len(shapes) < _SHAPE_LIMIT and len(obj) <= len(fields) + len(inline_writers) + len(ignored):
                shape = tuple(obj)
                found = shapes[shape] = compile_shape(shape, fields, inline_writers, ignored, unknown)
            else:
                write_key_by_key(obj, buf)
                return
        found(obj, buf)

    def write_key_by_key(obj: dict, buf: bytearray) -> None:
        """For objects built to vary their keys, or made longer than their message by keys without a
        field: no shape of theirs is compiled, which bounds the code kept per message. Each key of an
        inline struct is written as an instance of it, which readers merge."""
        for key, value in obj.items():
            if value is None or key in ignored:
                continue
            single = singles.get(key)
            if single is None:
                if key not in fields and key not in inline_writers:
                    raise FieldError((key,), unknown)
                single = singles[key] = compile_shape((key,), fields, inline_writers, ignored, unknown)
            single({key: value}, buf)

    _writers[message] = write  # before the fields: messages may refer to themselves
    for field in schema().messages[message]:
        if field.inline:
            inline = (tag(field.number, LENGTH_DELIMITED), writer(field.type))
            inline_writers.update(dict.fromkeys(json_keys(field.type), inline))
        else:
            fields[field.json_name] = _field_spec(field)
    return write


def json_keys(message: str) -> list[str]:
    """The JSON keys a message's fields occupy, inline fields flattened."""
    keys: list[str] = []
    for field in schema().messages[message]:
        keys.extend(json_keys(field.type) if field.inline else [field.json_name])
    return keys


def _field_spec(field: FieldSpec) -> tuple:
    if field.label == "map":
        field_tag = tag(field.number, LENGTH_DELIMITED)
        return (OTHER, None, field_tag, _map_encoder(field_tag, field.type))
    if field.type in ("int32", "int64", "bool"):
        field_tag = tag(field.number, VARINT)
        kind = {"int32": INT32, "int64": INT64, "bool": BOOL}[field.type]
        if field.label == "repeated":
            return (OTHER, None, field_tag, _repeated_varint_encoder(field_tag, kind))
        return (kind, prefix_table(field_tag), field_tag, None)
    field_tag = tag(field.number, LENGTH_DELIMITED)
    if field.type == "string":
        kind = REPEATED_STRING if field.label == "repeated" else STRING
        return (kind, prefix_table(field_tag), field_tag, None)
    if field.type == "bytes":
        return (OTHER, None, field_tag, _bytes_encoder(field_tag))
    repeated = field.label == "repeated"
    form = form_of(field.type)
    if form is not None:
        return (REPEATED_FORM if repeated else FORM, prefix_table(field_tag), field_tag, form.encode)
    return (REPEATED_MESSAGE if repeated else MESSAGE, prefix_table(field_tag), field_tag, writer(field.type))


def _base64(value: object) -> bytes:
    """[]byte is base64 in JSON, as Go's encoding/json writes it."""
    if not isinstance(value, str):
        raise ProtobufError(f"expected a base64 string, got {json_type(value)}")
    try:
        return binascii.a2b_base64(value, strict_mode=True)
    except binascii.Error as exc:
        raise ProtobufError(f"illegal base64 data: {exc}") from None


def _bytes_encoder(field_tag: bytes) -> Callable[[object, bytearray], None]:
    def encode(value: object, buf: bytearray) -> None:
        data = _base64(value)
        buf += field_tag + varint(len(data))
        buf += data

    return encode


def _repeated_varint_encoder(field_tag: bytes, kind: int) -> Callable[[object, bytearray], None]:
    """Unpacked, as proto2 and upstream's generated code write repeated scalars."""

    def encode(values: object, buf: bytearray) -> None:
        if type(values) is not list:
            raise ProtobufError(f"expected an array, got {json_type(values)}")
        for value in values:
            if kind == BOOL and type(value) is not bool:
                raise ProtobufError(f"expected an array of booleans, got an item {value!r}")
            if kind != BOOL and (type(value) is not int or value not in INT_RANGES[kind]):
                raise ProtobufError(f"expected an array of integers, got an item {value!r}")
            buf += field_tag + varint(value)

    return encode


def _map_encoder(field_tag: bytes, value_type: str) -> Callable[[object, bytearray], None]:
    """A map is a repeated entry message {key=1, value=2}."""
    if value_type == "string":
        encode_value: Callable[[object], bytes] = str.encode
    elif value_type == "bytes":
        encode_value = _base64
    else:
        encode_value = _payload_encoder(value_type)
    entry_prefixes = prefix_table(field_tag)

    def encode(mapping: object, buf: bytearray) -> None:
        if type(mapping) is not dict:
            raise ProtobufError(f"expected an object, got {json_type(mapping)}")
        for key, value in mapping.items():
            if value is None:
                continue
            key_data = key.encode()
            try:
                value_data = encode_value(value)
            except ProtobufError as exc:
                raise at(key, exc) from None
            except TypeError:
                raise FieldError((key,), mismatch(STRING, value)) from None
            key_n, value_n = len(key_data), len(value_data)
            if key_n < 128 and value_n < 128:
                size = key_n + value_n + 4
                buf += entry_prefixes[size] if size < 128 else field_tag + varint(size)
                buf += _KEY_PREFIXES[key_n]
                buf += key_data
                buf += _VALUE_PREFIXES[value_n]
            else:
                key_head, value_head = b"\x0a" + varint(key_n), b"\x12" + varint(value_n)
                buf += field_tag + varint(len(key_head) + key_n + len(value_head) + value_n)
                buf += key_head
                buf += key_data
                buf += value_head
            buf += value_data

    return encode
