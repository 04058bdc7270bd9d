"""CBOR (`application/cbor`, watch as `application/cbor-seq`), behind the CBORServingAndStorage gate.

Every item starts with the self-described CBOR tag (55799, bytes d9 d9 f7) as upstream writes it, so a
reader can tell CBOR from JSON by the first bytes. A watch stream is a CBOR sequence: one
`{type, object}` map per event, concatenated.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

import cbor2

from svc.wire.formats import DecodeError, Format

SELF_DESCRIBED = b"\xd9\xd9\xf7"
MEDIA_TYPE = "application/cbor"
SEQUENCE_MEDIA_TYPE = "application/cbor-seq"
APPLY_PATCH_MEDIA_TYPE = "application/apply-patch+cbor"


_INT64 = 1 << 63


def _plain(value: Any) -> Any:
    """cbor2 returns immutable mappings for tagged items; the server works on plain dicts. What JSON
    cannot hold is refused as upstream's decoder refuses it: an integer past int64 (a large
    major-type-0/1 integer or a bignum), a NaN or infinite float, and (no place for them in an object
    decoded to JSON's model) map keys that are not text, byte strings, dates, undefined, simple values
    and unknown tags; each of these reached the handlers before and failed there with a 500."""
    if isinstance(value, dict) or hasattr(value, "items"):
        plain = {}
        for key, item in value.items():
            if type(key) is not str:
                raise ValueError(f"cannot unmarshal {_kind(key)} into Go value of type string (map key)")
            plain[key] = _plain(item)
        return plain
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if type(value) is int and not -_INT64 <= value < _INT64:
        raise ValueError(f"integer {value} overflows Go's int64")
    if type(value) is float and not math.isfinite(value):
        raise ValueError(f"floating-point {'NaN' if math.isnan(value) else 'infinity'} is not accepted")
    if value is None or type(value) in (str, int, float, bool):
        return value
    raise ValueError(f"{_kind(value)} is not accepted in an object")


def _kind(value: Any) -> str:
    """The CBOR item a decoded value came from, for an error message."""
    if type(value) is bool:
        return "primitives"
    if type(value) is int:
        return "positive integer" if value >= 0 else "negative integer"
    if type(value) is float:
        return "primitives"
    if isinstance(value, bytes):
        return "byte string"
    if isinstance(value, tuple):
        return "array"
    if isinstance(value, cbor2.CBORTag):
        return f"tag {value.tag}"
    if isinstance(value, datetime.date):
        return "time tag"
    return "simple value"


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
