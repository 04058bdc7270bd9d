"""The framing of etcd's Watch stream on our own HTTP/2 connection: every gRPC message a read brings is
ready at once (the point of the connection), a message split across reads waits for its rest, and a
stream ended by gRPC trailers fails with the storage error its status means."""

from __future__ import annotations

import asyncio
import struct
from typing import Any

import pytest
from aetcd import rpc

from svc.storage import errors
from svc.storage.etcd.watch_connection import WatchCall, _trailer_error


class _Unused:
    def send(self, stream_id: int, data: bytes) -> None:
        raise AssertionError("nothing is written in these tests")


def _framed(revision: int) -> bytes:
    message = rpc.WatchResponse(header=rpc.ResponseHeader(revision=revision)).SerializeToString()
    return struct.pack(">BI", 0, len(message)) + message


def _next_without_waiting(call: WatchCall) -> Any:
    """The next response if it is there without a turn of the event loop; AssertionError if not."""
    step = call.__anext__()
    try:
        step.send(None)
    except StopIteration as done:
        return done.value
    step.close()
    raise AssertionError("the response was not ready")


def test_every_message_of_one_read_is_ready_without_waiting_and_a_split_one_waits_for_its_rest() -> None:
    async def scenario() -> None:
        call = WatchCall(_Unused(), 1)  # type: ignore[arg-type]
        data = _framed(5) + _framed(6) + _framed(7)
        call.received(data[:-3])
        assert [_next_without_waiting(call).header.revision for _ in range(2)] == [5, 6]
        with pytest.raises(AssertionError, match="not ready"):
            _next_without_waiting(call)
        call.received(data[-3:])
        assert _next_without_waiting(call).header.revision == 7

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("trailers", "kind", "text"),
    [
        ({b"grpc-status": b"14", b"grpc-message": b"etcdserver: leader changed"}, errors.StoreUnreachableError, ""),
        ({b"grpc-status": b"3", b"grpc-message": b"bad%20key"}, errors.StorageError, "etcd: bad key"),
    ],
)
def test_trailers_end_the_stream_with_the_error_their_status_means(
    trailers: dict[bytes, bytes], kind: type[Exception], text: str
) -> None:
    error = _trailer_error(trailers)
    assert type(error) is kind
    assert text in str(error)
