"""The Protobuf wire format of the built-in kinds (spec 1 §2.8); see envelope.py."""

from svc.wire.protobuf.envelope import (
    MAGIC,
    NotMarshalableError,
    ProtobufError,
    decode_envelope,
    decode_object,
    decode_watch_event,
    encode_envelope,
    encode_list,
    encode_message,
    encode_object,
    encode_watch_event,
    frame_length,
    supports,
    watch_frame,
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
    "watch_frame",
]
