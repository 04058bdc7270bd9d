"""Protobuf bytes of an upstream message -> JSON-shaped dict.

One closure per message, built on first use from the schema table, reading `buf[pos:end]` and
dispatching on the whole field key (number and wire type) read as one varint.

What comes out is upstream's JSON of the object. Upstream's protobuf writes every non-pointer field,
zero or not, and its JSON leaves some of those out: a field on the wire is in the dict, even with a
zero value ("", 0, false, {} for an empty message), unless the table marks it omitted when zero
(Go `omitempty` on a non-pointer scalar, `omitzero` on a Time) and it holds that zero ("", 0,
false, null). A pointer field keeps its zero (`replicas: 0`); a field not on the wire is absent.
Repeated fields are lists and maps are dicts in wire order. Unknown field numbers are skipped, as
protobuf requires; a known number with the wrong wire type is an error. Repeated integers are
accepted packed or unpacked.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from svc.wire.protobuf.forms import form_of
from svc.wire.protobuf.schema import FieldSpec, schema
from svc.wire.protobuf.wire import (
    LENGTH_DELIMITED,
    VARINT,
    ProtobufError,
    read_varint,
    signed32,
    signed64,
    skip_field,
)

Decoder = Callable[[bytes, int, int], dict]

# Kinds up to _INLINE are length-delimited and share the length read.
_STRING, _MESSAGE, _REPEATED_MESSAGE, _REPEATED_STRING, _INLINE, _INT32, _INT64, _BOOL, _OTHER = range(9)
_SIGN = {_INT32: signed32, _INT64: signed64}

_decoders: dict[str, Decoder] = {}


def decoder(message: str) -> Decoder:
    """The decoder of a message (fully-qualified upstream name): (buf, pos, end) -> dict."""
    found = _decoders.get(message)
    if found is None:
        found = _build(message)
    return found


def _payload_decoder(type_: str) -> Callable[[bytes, int, int], object]:
    """JSON value of a message-typed payload: a special form or a plain message."""
    form = form_of(type_)
    return form.decode if form is not None else decoder(type_)


def _build(message: str) -> Decoder:
    fields: dict[int, tuple] = {}
    numbers: set[int] = set()
    omitted: set[int] = set()  # keys of the string and varint fields left out when zero
    short_name = message.rsplit(".", 1)[1]

    def decode(buf: bytes, pos: int, end: int) -> dict:
        obj: dict = {}
        while pos < end:
            key = buf[pos]
            pos += 1
            if key >= 0x80:
                key, pos = read_varint(buf, pos - 1)
            spec = fields.get(key)
            if spec is None:
                if key >> 3 in numbers:
                    raise ProtobufError(f"field {key >> 3} of {short_name} has wrong wire type {key & 7}")
                pos = skip_field(buf, pos, key & 7)
                continue
            kind, name, sub = spec
            if kind == _STRING:
                n = buf[pos]
                pos += 1
                if n >= 0x80:
                    n, pos = read_varint(buf, pos - 1)
                if not n and key in omitted:
                    obj.pop(name, None)  # the last value on the wire wins, as protobuf has it
                    continue
                stop = pos + n
                obj[name] = buf[pos:stop].decode()
                pos = stop
            elif kind <= _INLINE:
                n = buf[pos]
                pos += 1
                if n >= 0x80:
                    n, pos = read_varint(buf, pos - 1)
                stop = pos + n
                if kind == _MESSAGE:
                    obj[name] = sub(buf, pos, stop)
                elif kind == _INLINE:  # the embedded struct's fields belong to this object
                    obj.update(sub(buf, pos, stop))
                else:
                    items = obj.get(name)
                    if items is None:
                        items = obj[name] = []
                    items.append(sub(buf, pos, stop) if kind == _REPEATED_MESSAGE else buf[pos:stop].decode())
                pos = stop
            elif kind == _OTHER:
                pos = sub(buf, pos, obj)
            else:
                value = buf[pos]
                pos += 1
                if value >= 0x80:
                    value, pos = read_varint(buf, pos - 1)
                    value = sub(value)
                if not value and key in omitted:
                    obj.pop(name, None)
                    continue
                obj[name] = value if kind != _BOOL else value != 0
        if pos != end:
            raise ProtobufError(f"{short_name} is truncated")
        return obj

    _decoders[message] = decode  # before the fields: messages may refer to themselves
    for field in schema().messages[message]:
        numbers.add(field.number)
        specs = _field_specs(field)
        fields.update(specs)
        if field.omitted_when_zero:  # _OTHER readers leave the zero out themselves
            omitted.update(key for key, spec in specs.items() if spec[0] != _OTHER)
    return decode


def _field_specs(field: FieldSpec) -> dict[int, tuple]:
    """Dispatch entries keyed by (number << 3 | wire type)."""
    length_key = field.number << 3 | LENGTH_DELIMITED
    name = field.json_name
    if field.label == "map":
        return {length_key: (_OTHER, name, _map_decoder(name, field.type))}
    if field.type in ("int32", "int64", "bool"):
        kind = {"int32": _INT32, "int64": _INT64, "bool": _BOOL}[field.type]
        if field.label == "repeated":
            return {
                field.number << 3 | VARINT: (
                    _OTHER,
                    name,
                    _repeated_varint_decoder(name, kind, packed=False),
                ),
                length_key: (_OTHER, name, _repeated_varint_decoder(name, kind, packed=True)),
            }
        return {field.number << 3 | VARINT: (kind, name, _SIGN.get(kind, int))}
    if field.type == "string":
        return {length_key: (_REPEATED_STRING if field.label == "repeated" else _STRING, name, None)}
    if field.type == "bytes":
        return {length_key: (_OTHER, name, _bytes_decoder(name, omit_empty=field.omitted_when_zero))}
    if field.inline:
        return {length_key: (_INLINE, name, decoder(field.type))}
    if field.omitted_when_zero:
        return {length_key: (_OTHER, name, _omitted_when_null(name, _payload_decoder(field.type)))}
    kind = _REPEATED_MESSAGE if field.label == "repeated" else _MESSAGE
    return {length_key: (kind, name, _payload_decoder(field.type))}


def _read_length(buf: bytes, pos: int) -> tuple[int, int]:
    """(start, stop) of a length-delimited value at pos."""
    n, pos = read_varint(buf, pos)
    return pos, pos + n


def _bytes_decoder(name: str, *, omit_empty: bool) -> Callable[[bytes, int, dict], int]:
    def read(buf: bytes, pos: int, obj: dict) -> int:
        start, stop = _read_length(buf, pos)
        if start < stop or not omit_empty:
            obj[name] = base64.b64encode(buf[start:stop]).decode()
        else:
            obj.pop(name, None)
        return stop

    return read


def _omitted_when_null(name: str, payload: Callable[[bytes, int, int], object]) -> Callable[[bytes, int, dict], int]:
    """A message field whose zero upstream's JSON leaves out (`omitzero` on a Time, whose zero is null)."""

    def read(buf: bytes, pos: int, obj: dict) -> int:
        start, stop = _read_length(buf, pos)
        value = payload(buf, start, stop)
        if value is not None:
            obj[name] = value
        else:
            obj.pop(name, None)
        return stop

    return read


def _repeated_varint_decoder(name: str, kind: int, *, packed: bool) -> Callable[[bytes, int, dict], int]:
    convert = _SIGN.get(kind, bool)

    def read(buf: bytes, pos: int, obj: dict) -> int:
        items = obj.setdefault(name, [])
        if packed:
            start, stop = _read_length(buf, pos)
            while start < stop:
                value, start = read_varint(buf, start)
                items.append(convert(value))
            return stop
        value, pos = read_varint(buf, pos)
        items.append(convert(value))
        return pos

    return read


def _map_decoder(name: str, value_type: str) -> Callable[[bytes, int, dict], int]:
    """A map is a repeated entry message {key=1, value=2}; a missing part is its type's zero value."""
    if value_type == "string":

        def convert(buf: bytes, start: int, stop: int) -> object:
            return buf[start:stop].decode()
    elif value_type == "bytes":

        def convert(buf: bytes, start: int, stop: int) -> object:
            return base64.b64encode(buf[start:stop]).decode()
    else:
        convert = _payload_decoder(value_type)

    def read(buf: bytes, pos: int, obj: dict) -> int:
        pos, stop = _read_length(buf, pos)
        key, value_start, value_stop = "", pos, pos
        while pos < stop:
            field_key, n = buf[pos], buf[pos + 1]
            if field_key & 7 != LENGTH_DELIMITED:
                raise ProtobufError(f"map field {name} has an entry with wire type {field_key & 7}")
            if n < 0x80:
                start, pos = pos + 2, pos + 2 + n
            else:
                start, pos = _read_length(buf, pos + 1)
            if field_key == 0x0A:
                key = buf[start:pos].decode()
            elif field_key == 0x12:
                value_start, value_stop = start, pos
        if pos != stop:
            raise ProtobufError(f"map field {name} has a truncated entry")
        mapping = obj.get(name)
        if mapping is None:
            mapping = obj[name] = {}
        mapping[key] = convert(buf, value_start, value_stop)
        return stop

    return read
