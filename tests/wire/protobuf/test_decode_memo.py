"""Sub-messages decoded from kept JSON are equal to, and as fresh as, those decoded field by field."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from svc.wire.protobuf import decode_memo, decode_object, encode_object
from tests.wire.protobuf.samples import POD, pod, read_back
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
    assert decode_object(body) == read_back(POD)
    assert decode_object(body)["spec"]["containers"][0] is not decode_object(body)["spec"]["containers"][0]


@settings(max_examples=100)
@given(pods)
def test_read_again_or_not_a_pod_decodes_the_same(generated):
    body = encode_object(generated)
    direct = _decoded_without_memo(body)
    assert decode_object(body) == direct == read_back(generated)
    assert decode_object(body) == direct  # the second time from the memo


def test_values_stay_right_across_a_pause_and_a_full_memo(monkeypatch):
    monkeypatch.setattr(decode_memo, "BUDGET", 8 << 10)
    bodies = [encode_object(pod(index)) for index in range(decode_memo.TRIAL * 3)]
    for body in bodies + bodies[:5]:
        assert decode_object(body) == _decoded_without_memo(body)
