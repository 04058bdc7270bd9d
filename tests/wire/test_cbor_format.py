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
