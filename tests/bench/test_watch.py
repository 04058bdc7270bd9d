"""The watch client's byte scan: every embedded write time is found once, however reads split the stream."""

import asyncio
import itertools
from array import array

from hypothesis import given
from hypothesis import strategies as st

from bench.watch import MARKER, Watcher

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"


def _stream(stamps: list[int]) -> bytes:
    frames = []
    for stamp in stamps:
        frame = b'{"type":"ADDED","object":{"data":{' + MARKER + str(stamp).encode() + b'"}}}\n'
        frames.append(b"%x\r\n%s\r\n" % (len(frame), frame))
    return HEAD + b"".join(frames)


def _feed(stream: bytes, cuts: list[int]) -> Watcher:
    async def scenario() -> Watcher:
        watcher = Watcher(b"", array("q"))
        edges = [0, *sorted(cut % (len(stream) + 1) for cut in cuts), len(stream)]
        for start, end in itertools.pairwise(edges):
            if end > start:
                watcher.data_received(stream[start:end])
        return watcher

    return asyncio.run(scenario())


@given(st.lists(st.integers(10**18, 2 * 10**18), max_size=20), st.lists(st.integers(0, 10**6), max_size=30))
def test_each_write_time_is_counted_once_across_any_split(stamps: list[int], cuts: list[int]) -> None:
    watcher = _feed(_stream(stamps), cuts)
    assert watcher.established.result() is True
    assert watcher.received == len(stamps)
    assert len(watcher.latencies) == len(stamps)


def test_a_refused_watch_is_not_established() -> None:
    watcher = _feed(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", [])
    assert watcher.established.result() is False
