"""CBOR (`application/cbor`, watch as `application/cbor-seq`), behind the CBORServingAndStorage gate.

Every item starts with the self-described CBOR tag (55799, bytes d9 d9 f7) as upstream writes it, so a
reader can tell CBOR from JSON by the first bytes. A watch stream is a CBOR sequence: one
`{type, object}` map per event, concatenated.
"""

from __future__ import annotations

from typing import Any

import cbor2

from svc.wire.formats import DecodeError, Format

SELF_DESCRIBED = b"\xd9\xd9\xf7"
MEDIA_TYPE = "application/cbor"
SEQUENCE_MEDIA_TYPE = "application/cbor-seq"
APPLY_PATCH_MEDIA_TYPE = "application/apply-patch+cbor"


_INT64 = 1 << 63


def _plain(value: Any) -> Any:
    """cbor2 returns immutable mappings for tagged items; the server works on plain dicts. An integer
    past int64 (a large major-type-0/1 integer or a bignum) fails, as upstream's decoder fails it."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if type(value) is int and not -_INT64 <= value < _INT64:
        raise ValueError(f"integer {value} overflows Go's int64")
    return value


def encode(obj: Any) -> bytes:
    return SELF_DESCRIBED + cbor2.dumps(obj)


def decode(data: bytes) -> Any:
    try:
        return _plain(cbor2.loads(data))
    except (cbor2.CBORDecodeError, ValueError, TypeError) as error:
        raise DecodeError(f"cbor: {error}") from None


def _watch_frame(event_type: str, encoded: bytes) -> bytes:
    body = encoded.removeprefix(SELF_DESCRIBED)
    return SELF_DESCRIBED + b"\xa2" + cbor2.dumps("type") + cbor2.dumps(event_type) + cbor2.dumps("object") + body


CBOR = Format(MEDIA_TYPE, encode, decode, watch_frame=_watch_frame, stream_media_type=SEQUENCE_MEDIA_TYPE)
