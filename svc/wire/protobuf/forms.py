"""Messages whose JSON form is not a JSON object of their fields.

Upstream gives these apimachinery types custom JSON marshalling, so the field table alone does not
say how to map them:

| message | JSON | protobuf |
|---|---|---|
| meta.v1.Time | RFC 3339, whole seconds, or null when zero | {seconds=1, nanos=2}; empty when zero |
| meta.v1.MicroTime | RFC 3339 with 6 fraction digits, or null | {seconds=1, nanos=2}; empty when zero |
| meta.v1.Duration | Go duration string ("1h2m3s") | {duration=1 int64 nanoseconds} |
| intstr.IntOrString | number or string | {type=1 (0 int, 1 string), intVal=2, strVal=3} |
| resource.Quantity, QuantityValue | string | {string=1} |
| runtime.RawExtension | any JSON value | {raw=1 bytes of that value's JSON} |
| meta.v1.FieldsV1 | JSON object | {Raw=1 bytes of that object's JSON} |
| list wrappers (meta.v1.Verbs, ExtraValue) | array of strings | {items=1 repeated string} |

Go writes a non-pointer field of these types even when zero, as its marshaller spells zero: null for
Time, MicroTime, RawExtension, FieldsV1 and a nil named slice; "0" for a Quantity, 0 for an
IntOrString, "0s" for a Duration (`Form.zero`).

Upstream writes every field of Time, IntOrString and Duration even when zero; so do we, so these
payloads are byte-identical to upstream's. No built-in message of release 1.36 has a Duration
field; its text goes through svc.machinery.duration (float seconds: exact to the nanosecond for
durations under about 100 days, and sub-second values print as "0.5s" where Go prints "500ms").

Each form is a pair: `encode(value) -> payload bytes` and `decode(buf, pos, end) -> value` over
the payload at buf[pos:end]. Values that repeat across the objects of a list (timestamps,
quantities, ports) are cached both ways.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson

from svc.machinery.duration import format_duration, parse_duration
from svc.wire.protobuf.schema import schema
from svc.wire.protobuf.wire import (
    LENGTH_DELIMITED,
    VARINT,
    ProtobufError,
    json_type,
    length_prefixed,
    prefix_table,
    read_varint,
    signed32,
    signed64,
    split_fields,
    varint,
)

META = "k8s.io.apimachinery.pkg.apis.meta.v1"
_INT32_RANGE = range(-(1 << 31), 1 << 31)
_RFC3339 = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:([Zz])|([+-])(\d\d):(\d\d))")
_EPOCH = datetime(1970, 1, 1)
_SECOND = timedelta(seconds=1)
_GO_ZERO_TIME_MICROS = (datetime(1, 1, 1) - _EPOCH) // timedelta(microseconds=1)
_CACHE_LIMIT = 1 << 16
_FIELD_1_PREFIXES = prefix_table(b"\x0a")

Encode = Callable[[object], bytes]
Decode = Callable[[bytes, int, int], object]


@dataclass(frozen=True)
class Form:
    encode: Encode
    decode: Decode
    zero: object = None
    """What upstream's JSON writes for the Go zero value (a non-pointer field is written zero or not)."""


def _put(cache: dict, key: object, value: object) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def _cached_encoder(encode: Encode) -> Encode:
    """Caches the payloads of string values (only strings: True == 1 would alias an integer)."""
    cache: dict[str, bytes] = {}

    def cached(value: object) -> bytes:
        if type(value) is not str:
            return encode(value)
        payload = cache.get(value)
        if payload is None:
            payload = encode(value)
            _put(cache, value, payload)
        return payload

    return cached


def _cached_decoder(decode: Decode) -> Decode:
    """Caches by payload bytes; for forms whose JSON value is immutable."""
    cache: dict[bytes, object] = {}

    def cached(buf: bytes, pos: int, end: int) -> object:
        payload = buf[pos:end]
        value = cache.get(payload, cache)
        if value is cache:
            value = decode(payload, 0, len(payload))
            _put(cache, payload, value)
        return value

    return cached


def _fields(buf: bytes, pos: int, end: int, expected: dict[int, int]) -> dict[int, int | bytes]:
    """The last value of each expected field number, checking its wire type."""
    values: dict[int, int | bytes] = {}
    for number, wire_type, value in split_fields(buf, pos, end):
        if number in expected:
            if wire_type != expected[number]:
                raise ProtobufError(f"field {number} has wire type {wire_type}, expected {expected[number]}")
            values[number] = value
    return values


def _encode_timestamp(text: object) -> bytes:
    """RFC 3339 as Go's time.Parse reads it -> {seconds, nanos}, both written as upstream does."""
    if type(text) is str and len(text) == 20 and text[19] in "Zz" and text.isascii():
        seconds = _whole_utc_seconds(text)
        if seconds is not None:
            return b"\x08" + varint(seconds) + b"\x10\x00"
    return _encode_any_timestamp(text)


def _whole_utc_seconds(text: str) -> int | None:
    """Seconds since the epoch of `YYYY-MM-DDTHH:MM:SSZ`, the form the server writes, read by the
    standard library's parser (a fifth of the general path's time); None for anything else."""
    if text[4] != "-" or text[7] != "-" or text[10] not in "Tt" or text[13] != ":" or text[16] != ":":
        return None
    try:
        moment = datetime.fromisoformat(text[:19])
    except ValueError:
        return None
    return (moment - _EPOCH) // _SECOND


def _encode_any_timestamp(text: object) -> bytes:
    match = _RFC3339.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ProtobufError(f"expected an RFC 3339 timestamp, got {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in match.group(1, 2, 3, 4, 5, 6))
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError as exc:
        raise ProtobufError(f"invalid timestamp {text!r}: {exc}") from None
    seconds = calendar.timegm((year, month, day, hour, minute, second))
    if match.group(9):
        offset = (int(match.group(10)) * 60 + int(match.group(11))) * 60
        seconds += -offset if match.group(9) == "+" else offset
    nanos = int((match.group(7) or "0")[:9].ljust(9, "0"))
    return b"\x08" + varint(seconds) + b"\x10" + varint(nanos)


def _timestamp_decoder(fraction_digits: int) -> Decode:
    """Read as upstream reads it: Time drops the nanos, MicroTime truncates them to microseconds; Go's
    zero time (0001-01-01T00:00:00Z, or an empty message) is JSON null."""
    timespec = "microseconds" if fraction_digits else "seconds"

    def decode(buf: bytes, pos: int, end: int) -> str | None:
        if pos == end:
            return None  # upstream writes the zero time as an empty message
        values = _usual_timestamp(buf, pos, end) or _fields(buf, pos, end, {1: VARINT, 2: VARINT})
        nanos = signed32(values.get(2, 0)) if fraction_digits else 0
        micros = signed64(values.get(1, 0)) * 1_000_000 + (abs(nanos) // 1000) * (1 if nanos >= 0 else -1)
        if micros == _GO_ZERO_TIME_MICROS:
            return None
        try:
            moment = _EPOCH + timedelta(microseconds=micros)
        except OverflowError:
            raise ProtobufError("timestamp is out of the range JSON can represent") from None
        return moment.isoformat(timespec=timespec) + "Z"  # four-digit year, as Go writes it

    return _cached_decoder(decode)


def _usual_timestamp(buf: bytes, pos: int, end: int) -> dict[int, int] | None:
    """{1: seconds, 2: nanos} of `seconds=1, nanos=2` in that order, as writers lay them out; None for
    anything else."""
    if buf[pos] != 0x08:
        return None
    seconds, pos = read_varint(buf, pos + 1)
    if pos == end:
        return {1: seconds}
    if buf[pos] != 0x10:
        return None
    nanos, pos = read_varint(buf, pos + 1)
    return {1: seconds, 2: nanos} if pos == end else None


def _encode_int_or_string(value: object) -> bytes:
    if type(value) is str:
        return b"\x08\x01\x10\x00\x1a" + length_prefixed(value.encode())
    if type(value) is int and value in _INT32_RANGE:
        return b"\x08\x00\x10" + varint(value) + b"\x1a\x00"
    raise ProtobufError(f"expected an integer or a string, got {json_type(value)}")


def _decode_int_or_string(buf: bytes, pos: int, end: int) -> int | str:
    values = _fields(buf, pos, end, {1: VARINT, 2: VARINT, 3: LENGTH_DELIMITED})
    if values.get(1) == 1:
        return values.get(3, b"").decode()
    return signed32(values.get(2, 0))


def _encode_quantity(value: object) -> bytes:
    """Written as given: canonical form is the server's business (upstream canonicalizes on parse)."""
    if type(value) in (int, float):
        value = str(value)
    if type(value) is not str:
        raise ProtobufError(f"expected a quantity string, got {json_type(value)}")
    data = value.encode()
    return _FIELD_1_PREFIXES[len(data)] + data if len(data) < 128 else b"\x0a" + length_prefixed(data)


def _decode_quantity(buf: bytes, pos: int, end: int) -> str:
    if end - pos >= 2 and buf[pos] == 0x0A and buf[pos + 1] == end - pos - 2:  # the usual short string
        return buf[pos + 2 : end].decode()
    # An empty message is upstream's zero Quantity.
    return _fields(buf, pos, end, {1: LENGTH_DELIMITED}).get(1, b"0").decode()


def _encode_json(value: object) -> bytes:
    try:
        data = orjson.dumps(value)
    except TypeError as exc:
        raise ProtobufError(f"value cannot be written as JSON: {exc}") from None
    return b"".join((b"\x0a", varint(len(data)), data))  # one copy of what may be kilobytes


def _decode_json(buf: bytes, pos: int, end: int) -> object:
    raw = b""
    if end > pos and buf[pos] == 0x0A:  # the usual single field
        length, start = read_varint(buf, pos + 1)
        if start + length == end:
            raw = buf[start:end]
    if not raw:
        raw = _fields(buf, pos, end, {1: LENGTH_DELIMITED}).get(1, b"")
    if not raw:
        return None  # upstream writes a nil RawExtension as JSON null
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ProtobufError(f"embedded raw object is not JSON: {exc}") from None


def _encode_duration(value: object) -> bytes:
    if not isinstance(value, str):
        raise ProtobufError(f"expected a duration string, got {json_type(value)}")
    try:
        nanoseconds = round(parse_duration(value) * 1e9)
    except ValueError as exc:
        raise ProtobufError(str(exc)) from None
    return b"\x08" + varint(nanoseconds)


def _decode_duration(buf: bytes, pos: int, end: int) -> str:
    return format_duration(signed64(_fields(buf, pos, end, {1: VARINT}).get(1, 0)) / 1e9)


def _encode_string_list(value: object) -> bytes:
    if type(value) is not list or not all(type(item) is str for item in value):
        raise ProtobufError(f"expected an array of strings, got {json_type(value)}")
    return b"".join(b"\x0a" + length_prefixed(item.encode()) for item in value)


def _decode_string_list(buf: bytes, pos: int, end: int) -> list[str]:
    items = []
    for number, wire_type, value in split_fields(buf, pos, end):
        if number == 1:
            if wire_type != LENGTH_DELIMITED:
                raise ProtobufError(f"list item has wire type {wire_type}")
            items.append(value.decode())
    return items


_TIMESTAMP = _cached_encoder(_encode_timestamp)
_QUANTITY = Form(_cached_encoder(_encode_quantity), _decode_quantity, "0")
_JSON_BYTES = Form(_encode_json, _decode_json)

FORMS: dict[str, Form] = {
    f"{META}.Time": Form(_TIMESTAMP, _timestamp_decoder(0)),
    f"{META}.MicroTime": Form(_TIMESTAMP, _timestamp_decoder(6)),
    f"{META}.Duration": Form(_encode_duration, _decode_duration, "0s"),
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": Form(
        _cached_encoder(_encode_int_or_string), _cached_decoder(_decode_int_or_string), 0
    ),
    "k8s.io.apimachinery.pkg.api.resource.Quantity": _QUANTITY,
    "k8s.io.apimachinery.pkg.api.resource.QuantityValue": _QUANTITY,
    "k8s.io.apimachinery.pkg.runtime.RawExtension": _JSON_BYTES,
    f"{META}.FieldsV1": _JSON_BYTES,
}

_LIST_WRAPPER = Form(_encode_string_list, _decode_string_list)


def form_of(message: str) -> Form | None:
    """The custom form of a message, or None for a message that is a JSON object of its fields."""
    return FORMS.get(message) or (_LIST_WRAPPER if message in schema().list_wrappers else None)
