"""The three transactions every write sends (create, update, delete of one key), encoded straight to
etcd's wire form.

Building the request as Protobuf messages (a `TxnRequest` holding a `Compare` and two `RequestOp`s
around a put or delete) and serialising them costs about as much Python time as a sixth of the whole
gRPC call; these requests have one fixed shape, so they are written as bytes: a few length-prefixed
fields. The field numbers are those of etcd's `rpc.proto`; tests check the bytes against the messages.
"""

from __future__ import annotations

# wire types: 0 varint, 2 length-delimited
_COMPARE = b"\x0a"  # TxnRequest.compare, field 1
_SUCCESS = b"\x12"  # TxnRequest.success, field 2
_FAILURE = b"\x1a"  # TxnRequest.failure, field 3
_RESULT_GREATER = b"\x08\x01"  # Compare.result = GREATER, field 1 (EQUAL is 0 and not written)
_TARGET_MOD = b"\x10\x02"  # Compare.target = MOD, field 2
_COMPARE_KEY = b"\x1a"  # Compare.key, field 3
_MOD_REVISION = b"\x30"  # Compare.mod_revision, field 6 (in a oneof: written even when 0)
_OP_RANGE = b"\x0a"  # RequestOp.request_range, field 1
_OP_PUT = b"\x12"  # RequestOp.request_put, field 2
_OP_DELETE = b"\x1a"  # RequestOp.request_delete_range, field 3
_KEY = b"\x0a"  # PutRequest/RangeRequest/DeleteRangeRequest.key, field 1
_PUT_VALUE = b"\x12"  # PutRequest.value, field 2
_PUT_PREV_KV = b"\x20\x01"  # PutRequest.prev_kv = true, field 4
_DELETE_PREV_KV = b"\x18\x01"  # DeleteRangeRequest.prev_kv = true, field 3


_SMALL = [bytes((n,)) for n in range(0x80)]


def _varint(value: int) -> bytes:
    if value < 0x80:
        return _SMALL[value]
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(tag: bytes, payload: bytes) -> bytes:
    return b"".join((tag, _varint(len(payload)), payload))


def _compare(key: bytes, expected_revision: int) -> bytes:
    """The key's mod revision equals `expected_revision`, or (0) merely that the key exists."""
    result = b"" if expected_revision else _RESULT_GREATER
    body = b"".join((result, _TARGET_MOD, _field(_COMPARE_KEY, key), _MOD_REVISION, _varint(expected_revision)))
    return _field(_COMPARE, body)


def _read_back(key: bytes) -> bytes:
    """The failure branch: read the key, so a refusal says what is stored."""
    return _field(_FAILURE, _field(_OP_RANGE, _field(_KEY, key)))


def create_txn(key: bytes, value: bytes) -> bytes:
    """Put `key` if it does not exist (mod revision 0)."""
    compare = b"".join((_TARGET_MOD, _field(_COMPARE_KEY, key), _MOD_REVISION, b"\x00"))
    put = b"".join((_field(_KEY, key), _field(_PUT_VALUE, value)))
    return b"".join((_field(_COMPARE, compare), _field(_SUCCESS, _field(_OP_PUT, put))))


def update_txn(key: bytes, value: bytes, expected_revision: int) -> bytes:
    """Put `key` (returning the previous value) when its mod revision is the expected one, else read it."""
    put = b"".join((_field(_KEY, key), _field(_PUT_VALUE, value), _PUT_PREV_KV))
    return b"".join((_compare(key, expected_revision), _field(_SUCCESS, _field(_OP_PUT, put)), _read_back(key)))


def delete_txn(key: bytes, expected_revision: int) -> bytes:
    """Delete `key` (returning its value) when its mod revision is the expected one, else read it."""
    delete = b"".join((_field(_KEY, key), _DELETE_PREV_KV))
    return b"".join((_compare(key, expected_revision), _field(_SUCCESS, _field(_OP_DELETE, delete)), _read_back(key)))
