"""The hand-encoded write transactions are byte for byte what etcd's Protobuf messages serialise to."""

from __future__ import annotations

import pytest
from aetcd import rpc

from svc.storage.etcd import txn_wire

KEY = b"/registry/configmaps/default/" + b"n" * 200  # a key longer than 127 bytes: a two-byte length
VALUE = b"k8s\x00" + bytes(range(256)) * 3


def _guard(expected: int) -> rpc.Compare:
    if expected:
        return rpc.Compare(key=KEY, target=rpc.Compare.MOD, result=rpc.Compare.EQUAL, mod_revision=expected)
    return rpc.Compare(key=KEY, target=rpc.Compare.MOD, result=rpc.Compare.GREATER, mod_revision=0)


def _read_back() -> list[rpc.RequestOp]:
    return [rpc.RequestOp(request_range=rpc.RangeRequest(key=KEY))]


def test_create() -> None:
    expected = rpc.TxnRequest(
        compare=[rpc.Compare(key=KEY, target=rpc.Compare.MOD, result=rpc.Compare.EQUAL, mod_revision=0)],
        success=[rpc.RequestOp(request_put=rpc.PutRequest(key=KEY, value=VALUE))],
    )
    assert txn_wire.create_txn(KEY, VALUE) == expected.SerializeToString()


@pytest.mark.parametrize("revision", [0, 1, 127, 128, 2**40])
def test_update(revision: int) -> None:
    expected = rpc.TxnRequest(
        compare=[_guard(revision)],
        success=[rpc.RequestOp(request_put=rpc.PutRequest(key=KEY, value=VALUE, prev_kv=True))],
        failure=_read_back(),
    )
    assert txn_wire.update_txn(KEY, VALUE, revision) == expected.SerializeToString()


@pytest.mark.parametrize("revision", [0, 5, 300])
def test_delete(revision: int) -> None:
    expected = rpc.TxnRequest(
        compare=[_guard(revision)],
        success=[rpc.RequestOp(request_delete_range=rpc.DeleteRangeRequest(key=KEY, prev_kv=True))],
        failure=_read_back(),
    )
    assert txn_wire.delete_txn(KEY, revision) == expected.SerializeToString()


def test_an_empty_value_is_still_written() -> None:
    expected = rpc.TxnRequest(
        compare=[rpc.Compare(key=KEY, target=rpc.Compare.MOD, result=rpc.Compare.EQUAL, mod_revision=0)],
        success=[rpc.RequestOp(request_put=rpc.PutRequest(key=KEY, value=b""))],
    )
    assert rpc.TxnRequest.FromString(txn_wire.create_txn(KEY, b"")) == expected
