"""Encode request bodies and decode response bodies in the four formats the server speaks."""

from __future__ import annotations

import json
from typing import Any

import yaml

from svc.api.brand import SVC
from svc.wire import cbor_format
from svc.wire.protobuf import decode_object, encode_object

PROTOBUF = SVC.protobuf_media_type
CONTENT_TYPES = {
    "json": "application/json",
    "yaml": "application/yaml",
    "protobuf": PROTOBUF,
    "cbor": "application/cbor",
}
SELF_DESCRIBED_CBOR = b"\xd9\xd9\xf7"


def dumps(obj: Any) -> bytes:
    """JSON of any generated value: the standard library writes integers past 64 bits, orjson does not."""
    return json.dumps(obj, ensure_ascii=False).encode()


def encode_body(obj: Any, fmt: str) -> bytes:
    """`obj` in `fmt`; an object Protobuf cannot carry (junk) goes as JSON, which the server must refuse."""
    if fmt == "json":
        return dumps(obj)
    if fmt == "yaml":
        return yaml.safe_dump(obj).encode()
    if fmt == "cbor":
        return cbor_format.encode(obj)
    try:
        return bytes(encode_object(obj, group_of=SVC.upstream_group))
    except Exception:
        return dumps(obj)


def decode_body(content_type: str, body: bytes) -> Any:
    """Decode a response body by the media type it names (parameters ignored)."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "application/json":
        return json.loads(body)
    if media == "application/yaml":
        return yaml.safe_load(body)
    if media == PROTOBUF:
        return decode_object(body, group_of=SVC.upstream_group)
    if media == "application/cbor":
        return cbor_format.decode(body)
    raise AssertionError(f"error body in an unexpected media type {content_type!r}: {body[:200]!r}")
