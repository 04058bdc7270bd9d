"""Envelopes and watch frames laid out otherwise than the usual way read as the usual layout."""

from __future__ import annotations

from svc.wire.protobuf import decode_object, decode_watch_event, encode_envelope, encode_message, encode_watch_event
from svc.wire.protobuf.wire import varint
from tests.wire.protobuf.samples import POD, read_back

TYPE_META = b"\x0a\x02v1\x12\x03Pod"


def _field(number: int, payload: bytes) -> bytes:
    return bytes([number << 3 | 2]) + varint(len(payload)) + payload


def test_an_envelope_laid_out_otherwise_reads_as_the_usual_one():
    raw = encode_message(POD)
    unusual = b"k8s\x00" + _field(2, raw) + _field(4, b"application/json") + _field(1, TYPE_META)
    assert decode_object(unusual) == decode_object(encode_envelope("v1", "Pod", raw)) == read_back(POD)


def test_a_watch_frame_laid_out_otherwise_reads_as_the_usual_one():
    enveloped = encode_envelope("v1", "Pod", encode_message(POD))
    event = _field(2, _field(1, enveloped)) + _field(1, b"MODIFIED")
    frame = len(event).to_bytes(4, "big") + event
    assert (
        decode_watch_event(frame)
        == decode_watch_event(encode_watch_event("MODIFIED", POD))
        == ("MODIFIED", read_back(POD))
    )
