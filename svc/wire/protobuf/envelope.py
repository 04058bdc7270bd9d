"""The Protobuf media type of spec 1 §2.8: envelope, objects, lists and watch frames.

A body is the magic `6b 38 73 00` followed by `runtime.Unknown{typeMeta=1 {apiVersion=1, kind=2},
raw=2, contentEncoding=3, contentType=4}`, raw holding the object's message. We write the envelope
as upstream's serializer does, empty contentEncoding and contentType included, so envelope bytes
match upstream's for the same raw.

A list is its `<Kind>List` message: ListMeta (always written, as upstream does) then one `items`
field per item; items are encoded one at a time and the envelope is joined around them once.

Watch over protobuf (apimachinery serializer/protobuf LengthDelimitedFramer and apiserver
handlers/watch.go): each event is one frame, a 4-byte big-endian length and then a bare
`meta.v1.WatchEvent{type=1, object=2 RawExtension{raw=1}}` with no magic and no Unknown wrapper
(the stream serializer is the "raw" one); `raw` holds the object fully enveloped (magic + Unknown),
as encode_object writes it. ERROR events carry a Status the same way.

The apiVersion in the envelope is the served one (`rbac.authorization.svc/v1` under the svc brand);
`group_of` maps a served group to its upstream name to find the message. Table has no protobuf
message upstream (served as JSON and YAML only), nor have custom resources: encoding them raises
NotMarshalableError, which the server turns into 406.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable

from svc.wire.protobuf.decoder import decoder
from svc.wire.protobuf.encoder import Writer, encoder, writer
from svc.wire.protobuf.memo import list_memo
from svc.wire.protobuf.schema import schema
from svc.wire.protobuf.wire import (
    LENGTH_DELIMITED,
    NotMarshalableError,
    ProtobufError,
    close_message,
    json_type,
    prefix_table,
    read_varint,
    skip_field,
    split_fields,
    tag,
    varint,
)

__all__ = [
    "MAGIC",
    "NotMarshalableError",
    "ProtobufError",
    "decode_envelope",
    "decode_object",
    "decode_watch_event",
    "encode_envelope",
    "encode_list",
    "encode_message",
    "encode_object",
    "encode_watch_event",
    "frame_length",
    "supports",
]

MAGIC = b"k8s\x00"
_EXPECTED_PREFIX = "[107 56 115 0]"  # Go's %v of the prefix bytes, as upstream's error prints it
_ENVELOPE_TAIL = b"\x1a\x00\x22\x00"  # empty contentEncoding and contentType
_FRAME_LENGTH = struct.Struct(">I")
_MALFORMED = (IndexError, UnicodeDecodeError, TypeError, AttributeError, ValueError)

GroupOf = Callable[[str], str]


def _identity(group: str) -> str:
    return group


def _message(api_version: str, kind: str, group_of: GroupOf | None) -> str | None:
    group, _, version = api_version.rpartition("/")
    upstream = (group_of or _identity)(group) if group else ""
    return schema().message_for(f"{upstream}/{version}" if upstream else version, kind)


def supports(api_version: str, kind: str, *, group_of: GroupOf | None = None) -> bool:
    """Whether upstream has a protobuf message for the kind (built-in kinds, not Table or CRDs)."""
    return _message(api_version, kind, group_of) is not None


def _type_meta(obj: dict) -> tuple[str, str]:
    if not isinstance(obj, dict):
        raise ProtobufError(f"expected an object, got {json_type(obj)}")
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
        raise ProtobufError("object has no apiVersion and kind to encode")
    return api_version, kind


def _message_or_raise(api_version: str, kind: str, group_of: GroupOf | None) -> str:
    message = _message(api_version, kind, group_of)
    if message is None:
        raise NotMarshalableError(
            f"object {api_version}, Kind={kind} does not implement the protobuf marshalling interface"
            " and cannot be encoded to a protobuf message"
        )
    return message


def _envelope_head(api_version: str, kind: str, raw_length: int) -> bytes:
    version_data, kind_data = api_version.encode(), kind.encode()
    type_meta = b"\x0a" + varint(len(version_data)) + version_data + b"\x12" + varint(len(kind_data)) + kind_data
    return MAGIC + b"\x0a" + varint(len(type_meta)) + type_meta + b"\x12" + varint(raw_length)


def encode_envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    return b"".join((_envelope_head(api_version, kind, len(raw)), raw, _ENVELOPE_TAIL))


def decode_envelope(data: bytes) -> tuple[str, str, bytes]:
    """(apiVersion, kind, raw) of an enveloped body; a body without the magic prefix is rejected."""
    data = bytes(data)
    api_version, kind, start, stop = _envelope_span(data)
    return api_version, kind, data[start:stop]


def _envelope_span(data: bytes) -> tuple[str, str, int, int]:
    """(apiVersion, kind, start, stop) of an enveloped body, raw being data[start:stop]: the object's
    message is decoded where it lies, not copied out first."""
    if not data:
        raise ProtobufError("empty data")
    if not data.startswith(MAGIC):
        raise ProtobufError(
            f"provided data does not appear to be a protobuf message, expected prefix {_EXPECTED_PREFIX}"
        )
    if len(data) == len(MAGIC):
        raise ProtobufError("empty body")
    try:
        return _usual_envelope(data) or _any_envelope(data)
    except _MALFORMED as exc:
        raise ProtobufError(f"malformed protobuf envelope: {exc}") from None


def _usual_envelope(data: bytes) -> tuple[str, str, int, int] | None:
    """The envelope as every writer lays it out (typeMeta with short apiVersion and kind, raw, then
    empty or no contentEncoding and contentType), read without a loop; None for any other layout."""
    if data[4] != 0x0A or data[6] != 0x0A:
        return None
    meta_end = 6 + data[5]
    version_end = 8 + data[7]
    if data[5] >= 0x80 or data[7] >= 0x80 or data[version_end] != 0x12:
        return None
    if version_end + 2 + data[version_end + 1] != meta_end or data[meta_end] != 0x12:
        return None
    length, start = read_varint(data, meta_end + 1)
    stop = start + length
    if stop > len(data) or data[stop:] not in (_ENVELOPE_TAIL, b""):
        return None
    return data[8:version_end].decode(), data[version_end + 2 : meta_end].decode(), start, stop


def _any_envelope(data: bytes) -> tuple[str, str, int, int]:
    """The general read: fields in any order and number, the last of each winning, others skipped."""
    api_version, kind, start, stop = "", "", 0, 0
    pos, end = len(MAGIC), len(data)
    while pos < end:
        key, pos = read_varint(data, pos)
        if key & 7 != LENGTH_DELIMITED:
            pos = skip_field(data, pos, key & 7)
            continue
        length, pos = read_varint(data, pos)
        if key >> 3 == 1:
            for meta_number, meta_wire_type, meta_value in split_fields(data, pos, pos + length):
                if meta_number == 1 and meta_wire_type == LENGTH_DELIMITED:
                    api_version = meta_value.decode()
                elif meta_number == 2 and meta_wire_type == LENGTH_DELIMITED:
                    kind = meta_value.decode()
        elif key >> 3 == 2:
            start, stop = pos, pos + length
        pos += length
    if pos != end:
        raise ProtobufError("message is truncated")
    return api_version, kind, start, stop


def encode_message(obj: dict, *, group_of: GroupOf | None = None) -> bytes:
    """The object's message bytes without the envelope: what a list item or an envelope's raw holds,
    and what a cache may keep per object version to serve lists, gets and watches from."""
    api_version, kind = _type_meta(obj)
    return encoder(_message_or_raise(api_version, kind, group_of))(obj)


def encode_object(obj: dict, *, group_of: GroupOf | None = None) -> bytes:
    api_version, kind = _type_meta(obj)
    return encode_envelope(api_version, kind, encoder(_message_or_raise(api_version, kind, group_of))(obj))


def decode_object(data: bytes, *, group_of: GroupOf | None = None) -> dict:
    """The JSON form of an enveloped object: kind and apiVersion first, then the fields on the wire."""
    data = bytes(data)
    api_version, kind, start, stop = _envelope_span(data)
    if not kind:
        raise ProtobufError("Object 'Kind' is missing in the protobuf envelope")
    message = _message(api_version, kind, group_of)
    if message is None:
        raise ProtobufError(f'no kind "{kind}" is registered for version "{api_version}"')
    try:
        fields = decoder(message)(data, start, stop)
    except ProtobufError:
        raise
    except _MALFORMED as exc:
        raise ProtobufError(f"malformed protobuf {kind}: {exc}") from None
    return {"kind": kind, "apiVersion": api_version, **fields}


def encode_list(list_obj: dict, item_kind: str, *, group_of: GroupOf | None = None) -> bytearray:
    """An enveloped `<Kind>List`. Items may be dicts or message bytes from encode_message."""
    if not isinstance(list_obj, dict) or not isinstance(list_obj.get("apiVersion"), str):
        raise ProtobufError("list has no apiVersion to encode")
    api_version = list_obj["apiVersion"]
    kind = list_obj.get("kind") or f"{item_kind}List"
    message = _message_or_raise(api_version, kind, group_of)
    items_field = next((f for f in schema().messages[message] if f.json_name == "items"), None)
    metadata_field = next((f for f in schema().messages[message] if f.json_name == "metadata"), None)
    if items_field is None or metadata_field is None:
        raise ProtobufError(f"{kind} is not a list kind")
    head = {key: value for key, value in list_obj.items() if key != "items"}
    if head.get("metadata") is None:  # upstream writes ListMeta even when it is empty
        head["metadata"] = {}
    # The list is written after room for the envelope's head, which is put in front of it at the end:
    # a list's bytes are tens of megabytes, which joining head and body would copy once more.
    room = len(_envelope_head(api_version, kind, 0)) + 9  # the body's length takes up to 10 bytes, not 1
    raw = bytearray(room)
    writer(message)(head, raw)
    with list_memo():
        _write_items(list_obj.get("items") or [], items_field.number, writer(items_field.type), raw)
    raw += _ENVELOPE_TAIL
    envelope_head = _envelope_head(api_version, kind, len(raw) - room - len(_ENVELOPE_TAIL))
    del raw[: room - len(envelope_head)]  # CPython drops a bytearray's prefix without moving the rest
    raw[: len(envelope_head)] = envelope_head
    return raw


def _write_items(items: Iterable, number: int, write_item: Writer, raw: bytearray) -> None:
    """Each item as an `items` field, written into the list's one buffer."""
    field_tag = tag(number, LENGTH_DELIMITED)
    prefixes = prefix_table(field_tag)
    for index, item in enumerate(items):
        if isinstance(item, bytes):
            n = len(item)
            raw += prefixes[n] if n < 128 else field_tag + varint(n)
            raw += item
            continue
        if not isinstance(item, dict):
            raise ProtobufError(f"items[{index}]: expected an object, got {json_type(item)}")
        raw += field_tag
        start = len(raw)
        try:
            write_item(item, raw)
        except ProtobufError as exc:
            raise ProtobufError(f"items[{index}].{exc}") from None
        close_message(raw, start)


def encode_watch_event(type: str, obj: dict, *, group_of: GroupOf | None = None) -> bytes:
    """One length-prefixed frame of a protobuf watch stream."""
    return watch_frame(type, encode_object(obj, group_of=group_of))


def watch_frame(type: str, enveloped: bytes) -> bytes:
    """The frame of an event whose object is already encoded (so watchers share one encoding)."""
    type_data = type.encode()
    raw_extension = b"\x0a" + varint(len(enveloped))
    event = b"".join(
        (
            b"\x0a" + varint(len(type_data)) + type_data,
            b"\x12" + varint(len(raw_extension) + len(enveloped)) + raw_extension,
            enveloped,
        )
    )
    return _FRAME_LENGTH.pack(len(event)) + event


def decode_watch_event(frame: bytes, *, group_of: GroupOf | None = None) -> tuple[str, dict]:
    """(type, object) of one frame as encode_watch_event writes it, length prefix included."""
    frame = bytes(frame)
    if len(frame) < _FRAME_LENGTH.size or _FRAME_LENGTH.unpack_from(frame)[0] != len(frame) - _FRAME_LENGTH.size:
        raise ProtobufError("watch frame length does not match its body")
    try:
        event_type, enveloped = _usual_frame(frame) or _any_frame(frame)
    except _MALFORMED as exc:
        raise ProtobufError(f"malformed watch event: {exc}") from None
    return event_type, decode_object(enveloped, group_of=group_of)


def _usual_frame(frame: bytes) -> tuple[str, bytes] | None:
    """(type, enveloped object) of a frame as writers lay it out: type, then the RawExtension holding
    only its raw; None for any other layout."""
    if len(frame) < 6 or frame[4] != 0x0A or frame[5] >= 0x80:
        return None
    type_end = 6 + frame[5]
    if type_end >= len(frame) or frame[type_end] != 0x12:
        return None
    length, start = read_varint(frame, type_end + 1)
    if not length or start + length != len(frame) or frame[start] != 0x0A:
        return None
    raw_length, raw_start = read_varint(frame, start + 1)
    if raw_start + raw_length != len(frame):
        return None
    return frame[6:type_end].decode(), frame[raw_start:]


def _any_frame(frame: bytes) -> tuple[str, bytes]:
    """The general read: fields in any order and number, the last of each winning, others skipped."""
    event_type, enveloped = "", b""
    for number, wire_type, value in split_fields(frame, _FRAME_LENGTH.size, len(frame)):
        if number == 1 and wire_type == LENGTH_DELIMITED:
            event_type = value.decode()
        elif number == 2 and wire_type == LENGTH_DELIMITED:
            for raw_number, raw_wire_type, raw_value in split_fields(value, 0, len(value)):
                if raw_number == 1 and raw_wire_type == LENGTH_DELIMITED:
                    enveloped = raw_value
    return event_type, enveloped


def frame_length(header: bytes) -> int:
    """Body length announced by a frame's 4-byte header, for readers of a watch stream."""
    return _FRAME_LENGTH.unpack(header)[0]
