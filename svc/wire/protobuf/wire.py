"""Protobuf wire primitives: varints, tags and length prefixes.

Written by hand rather than taken from the `protobuf` package: its Python API works on message
objects, and the dict <-> message step costs more than the bytes themselves. Measured on the
sample pod with message classes built at runtime: upb construction from the (transformed) dict plus
SerializeToString took about 1.4x the time of this encoder, ParseFromString plus a ListFields walk
back to a dict about 1.3x the time of this decoder.
"""

from __future__ import annotations

from collections.abc import Callable

VARINT = 0
FIXED64 = 1
LENGTH_DELIMITED = 2
FIXED32 = 5

# Appends a message's bytes (without tag or length) to a buffer.
Writer = Callable[[dict, bytearray], None]

_UINT64 = 1 << 64
_BYTES = tuple(bytes((n,)) for n in range(256))


class ProtobufError(ValueError):
    """Bytes that are not a valid encoding, or an object that has no valid encoding."""


class NotMarshalableError(ProtobufError):
    """The kind has no protobuf message upstream (Table, custom resources): a 406 for the client."""


def json_type(value: object) -> str:
    """The JSON name of a value's type, for error messages."""
    names = {str: "string", int: "number", float: "number", bool: "boolean", list: "array", dict: "object"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def varint(value: int) -> bytes:
    """Base-128 varint; negative numbers as their 64-bit two's complement, as proto int32/int64 are."""
    if 0 <= value < 128:
        return _BYTES[value]
    if 0 < value < 16384:
        return _BYTES[value & 0x7F | 0x80] + _BYTES[value >> 7]
    if value < 0:
        value += _UINT64
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """(value, next position); the value is unsigned."""
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise ProtobufError("varint overflows 64 bits")


def signed64(value: int) -> int:
    return value - _UINT64 if value >= 1 << 63 else value


def signed32(value: int) -> int:
    """proto int32 is sign-extended to 64 bits on the wire and truncated back, as Go's int32() does."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def close_message(buf: bytearray, start: int) -> None:
    """Insert the length of what was written from `start` in front of it (compiled writers inline it)."""
    n = len(buf) - start
    if n < 128:
        buf.insert(start, n)
    else:
        buf[start:start] = varint(n)


def length_prefixed(payload: bytes) -> bytes:
    return varint(len(payload)) + payload


_PREFIX_TABLES: dict[bytes, tuple[bytes, ...]] = {}


def prefix_table(field_tag: bytes) -> tuple[bytes, ...]:
    """`tag + length` for every length below 128: one lookup instead of two appends on the hot path."""
    table = _PREFIX_TABLES.get(field_tag)
    if table is None:
        table = _PREFIX_TABLES[field_tag] = tuple(field_tag + bytes((n,)) for n in range(128))
    return table


def skip_field(buf: bytes, pos: int, wire_type: int) -> int:
    """Position after an unknown field's value."""
    if wire_type == VARINT:
        return read_varint(buf, pos)[1]
    if wire_type == LENGTH_DELIMITED:
        length, pos = read_varint(buf, pos)
        return pos + length
    if wire_type == FIXED64:
        return pos + 8
    if wire_type == FIXED32:
        return pos + 4
    raise ProtobufError(f"unsupported wire type {wire_type}")


def split_fields(buf: bytes, pos: int, end: int) -> list[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) of every field of a small message: varints as ints,
    length-delimited values as bytes. For the envelope and the special forms, not the hot path."""
    fields: list[tuple[int, int, int | bytes]] = []
    while pos < end:
        key, pos = read_varint(buf, pos)
        number, wire_type = key >> 3, key & 7
        if wire_type == VARINT:
            value, pos = read_varint(buf, pos)
            fields.append((number, wire_type, value))
        elif wire_type == LENGTH_DELIMITED:
            length, pos = read_varint(buf, pos)
            fields.append((number, wire_type, buf[pos : pos + length]))
            pos += length
        else:
            pos = skip_field(buf, pos, wire_type)
    if pos != end:
        raise ProtobufError("message is truncated")
    return fields
