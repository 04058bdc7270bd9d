"""CBOR bodies: what the decoder refuses before anything is stored."""

from __future__ import annotations

import cbor2
import pytest

from svc.wire.cbor_format import SELF_DESCRIBED, decode
from svc.wire.errors import DecodeError


@pytest.mark.parametrize("number", [1 << 63, 1 << 64, 1 << 70, -(1 << 63) - 1, -(1 << 80)])
def test_integer_past_int64_is_a_decode_error(number: int) -> None:
    with pytest.raises(DecodeError, match=r"overflows Go's int64"):
        decode(SELF_DESCRIBED + cbor2.dumps({"metadata": {"generation": number}}))


@pytest.mark.parametrize("number", [(1 << 63) - 1, -(1 << 63), 0])
def test_int64_bounds_decode(number: int) -> None:
    assert decode(cbor2.dumps([number])) == [number]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({b"k": "v"}, "cannot unmarshal byte string into Go value of type string (map key)"),
        ({1: "v"}, "cannot unmarshal positive integer into Go value of type string (map key)"),
        ({"k": b"\x00\xff"}, "byte string is not accepted in an object"),
        ({"k": cbor2.undefined}, "simple value is not accepted in an object"),
        ({"k": cbor2.CBORSimpleValue(99)}, "simple value is not accepted in an object"),
        ({"k": cbor2.CBORTag(1, 0)}, "time tag is not accepted in an object"),
        ({"k": cbor2.CBORTag(24, b"\x61a")}, "tag 24 is not accepted in an object"),
        ({"k": float("nan")}, "floating-point NaN is not accepted"),
        ({"k": float("-inf")}, "floating-point infinity is not accepted"),
    ],
)
def test_what_json_cannot_hold_is_a_decode_error(data: dict, message: str) -> None:
    """Found by tests/fuzz: each of these reached the handlers and failed there with a 500 (a custom
    resource's free-form field took a byte string to the JSON encoder, a map key 1 to a string join)."""
    with pytest.raises(DecodeError) as raised:
        decode(SELF_DESCRIBED + cbor2.dumps({"metadata": {"name": "a"}, "data": data}))
    assert str(raised.value) == f"cbor: {message}"


def test_a_self_described_item_inside_decodes_to_its_content() -> None:
    assert decode(cbor2.dumps({"k": cbor2.CBORTag(55799, "v")})) == {"k": "v"}
