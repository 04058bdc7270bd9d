"""Sub-messages decoded from kept JSON are equal to, and as fresh as, those decoded field by field;
envelopes in any layout read as the usual one."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings

from svc.wire.protobuf import decode_memo, decode_object, encode_envelope, encode_message, encode_object
from tests.wire.protobuf.samples import POD, pod
from tests.wire.protobuf.test_roundtrip import pods


def _decoded_without_memo(body: bytes) -> dict:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decode_memo, "MIN_SIZE", 1 << 30)
        return decode_object(body)


def test_a_value_read_again_is_equal_and_not_shared():
    body = encode_object(POD)
    first = decode_object(body)
    first["spec"]["containers"][0]["ports"].append({"containerPort": 1})
    first["spec"]["containers"][0]["name"] = "changed"
    assert decode_object(body) == POD
    assert decode_object(body)["spec"]["containers"][0] is not decode_object(body)["spec"]["containers"][0]


@settings(max_examples=100)
@given(pods)
def test_read_again_or_not_a_pod_decodes_the_same(generated):
    body = encode_object(generated)
    direct = _decoded_without_memo(body)
    assert decode_object(body) == direct == generated
    assert decode_object(body) == direct  # the second time from the memo


def test_values_stay_right_across_a_pause_and_a_full_memo(monkeypatch):
    monkeypatch.setattr(decode_memo, "BUDGET", 8 << 10)
    bodies = [encode_object(pod(index)) for index in range(decode_memo.TRIAL * 3)]
    for body in bodies + bodies[:5]:
        assert decode_object(body) == _decoded_without_memo(body)


def test_an_envelope_laid_out_otherwise_reads_as_the_usual_one():
    raw = encode_message(POD)
    type_meta = b"\x0a\x02v1\x12\x03Pod"
    unusual = (
        b"k8s\x00"
        + b"\x12"
        + bytes([len(raw) & 0x7F | 0x80, len(raw) >> 7])
        + raw
        + b"\x22\x10application/json"
        + b"\x0a"
        + bytes([len(type_meta)])
        + type_meta
    )
    assert len(raw) < 1 << 14
    assert decode_object(unusual) == decode_object(encode_envelope("v1", "Pod", raw)) == copy.deepcopy(POD)
