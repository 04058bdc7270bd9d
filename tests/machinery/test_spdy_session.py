"""SPDY/3.1 flow control of the accepting session: received data is acknowledged with WINDOW_UPDATE
as it is consumed, a slow consumer stops the reading of frames, and sending keeps within the
windows of a peer that keeps them (and waits for the transport), without holding back one that
keeps none (kubectl's spdystream)."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Awaitable, Callable

import pytest

from svc.machinery import spdy

KIB = 1024


class Wire:
    """What the session writes; `drain` waits while `flowing` is clear."""

    def __init__(self) -> None:
        self.written = bytearray()
        self.flowing = asyncio.Event()
        self.flowing.set()

    def write(self, data: bytes) -> None:
        self.written += data

    async def drain(self) -> None:
        await self.flowing.wait()

    def frames(self) -> list[spdy.Frame]:
        frames, offset = [], 0
        while offset < len(self.written):
            first, flags_length = struct.unpack_from(">II", self.written, offset)
            length = flags_length & 0xFFFFFF
            data = bytes(self.written[offset + 8 : offset + 8 + length])
            if first & 0x80000000:
                frames.append(spdy.Frame(True, first & 0xFFFF, 0, flags_length >> 24, data))
            else:
                frames.append(spdy.Frame(False, 0, first & 0x7FFFFFFF, flags_length >> 24, data))
            offset += 8 + length
        return frames

    def window_updates(self) -> list[tuple[int, int]]:
        return [struct.unpack(">II", f.data) for f in self.frames() if f.control and f.kind == spdy.WINDOW_UPDATE]

    def data_sent(self, stream_id: int) -> int:
        return sum(len(f.data) for f in self.frames() if not f.control and f.stream_id == stream_id)

    def pings(self) -> int:
        return sum(1 for f in self.frames() if f.control and f.kind == spdy.PING)


def syn_stream(codec: spdy.HeaderCodec, stream_id: int) -> bytes:
    body = struct.pack(">IIH", stream_id, 0, 0) + codec.encode({"streamtype": "data"})
    return spdy.control_frame(spdy.SYN_STREAM, 0, body)


def settings_initial_window(size: int) -> bytes:
    return spdy.control_frame(spdy.SETTINGS, 0, struct.pack(">III", 1, spdy.SETTINGS_INITIAL_WINDOW_SIZE, size))


async def settle(check: Callable[[], bool] = lambda: False, rounds: int = 200) -> None:
    """Let the session run until `check` holds (at most `rounds` loop turns)."""
    for _ in range(rounds):
        if check():
            return
        await asyncio.sleep(0)


async def with_session(
    scenario: Callable[[asyncio.StreamReader, Wire, spdy.ServerSession, spdy.HeaderCodec], Awaitable[None]],
    on_data: Callable[[int, bytes, bool], Awaitable[None]] | None = None,
) -> None:
    async def consume(_stream: int, _data: bytes, _fin: bool) -> None:
        return None

    reader, wire, codec = asyncio.StreamReader(), Wire(), spdy.HeaderCodec()
    session = spdy.ServerSession(reader, wire, lambda _id, _headers: None, on_data or consume)
    running = asyncio.create_task(session.run())
    reader.feed_data(syn_stream(codec, 1))
    try:
        await scenario(reader, wire, session, codec)
    finally:
        reader.feed_eof()
        await asyncio.wait_for(running, timeout=5)


def test_consumed_data_is_acknowledged_for_the_stream_and_the_session() -> None:
    async def scenario(reader, wire, _session, _codec) -> None:
        for _ in range(3):
            reader.feed_data(spdy.data_frame(1, b"x" * 16 * KIB))
        await settle(lambda: len(wire.window_updates()) == 2)
        assert wire.window_updates() == [(1, 32 * KIB), (0, 32 * KIB)]

    asyncio.run(with_session(scenario))


def test_data_is_acknowledged_only_once_the_consumer_has_taken_it() -> None:
    gate = asyncio.Event()

    async def slow(_stream: int, _data: bytes, _fin: bool) -> None:
        await gate.wait()

    async def scenario(reader, wire, _session, _codec) -> None:
        for _ in range(2):
            reader.feed_data(spdy.data_frame(1, b"x" * 16 * KIB))
        await settle()
        assert wire.window_updates() == []
        gate.set()
        await settle(lambda: len(wire.window_updates()) == 2)
        assert wire.window_updates() == [(1, 32 * KIB), (0, 32 * KIB)]

    asyncio.run(with_session(scenario, slow))


def test_a_slow_consumer_stops_the_reading_of_further_frames() -> None:
    gate = asyncio.Event()

    async def slow(_stream: int, _data: bytes, _fin: bool) -> None:
        await gate.wait()

    async def scenario(reader, wire, _session, _codec) -> None:
        for _ in range(spdy.MAX_BUFFERED // (64 * KIB) + 2):
            reader.feed_data(spdy.data_frame(1, b"x" * 64 * KIB))
        reader.feed_data(spdy.control_frame(spdy.PING, 0, struct.pack(">I", 1)))
        await settle()
        assert wire.pings() == 0
        gate.set()
        await settle(lambda: wire.pings() == 1)
        assert wire.pings() == 1

    asyncio.run(with_session(scenario, slow))


def test_a_peer_that_keeps_windows_is_sent_no_more_than_its_window() -> None:
    async def scenario(reader, wire, session, _codec) -> None:
        reader.feed_data(settings_initial_window(1000))
        await settle()
        sending = asyncio.create_task(session.send(1, b"y" * 3000))
        await settle(lambda: wire.data_sent(1) == 1000)
        assert wire.data_sent(1) == 1000 and not sending.done()
        reader.feed_data(spdy.window_update(1, 1500))
        await settle(lambda: wire.data_sent(1) == 2500)
        assert wire.data_sent(1) == 2500 and not sending.done()
        reader.feed_data(spdy.window_update(1, 500))
        await asyncio.wait_for(sending, timeout=5)
        assert wire.data_sent(1) == 3000

    asyncio.run(with_session(scenario))


def test_the_session_window_bounds_every_stream() -> None:
    async def scenario(reader, wire, session, _codec) -> None:
        reader.feed_data(spdy.window_update(1, 100 * KIB))
        await settle()
        sending = asyncio.create_task(session.send(1, b"z" * 100 * KIB))
        await settle(lambda: wire.data_sent(1) == 64 * KIB)
        assert wire.data_sent(1) == 64 * KIB and not sending.done()
        reader.feed_data(spdy.window_update(0, 36 * KIB))
        await asyncio.wait_for(sending, timeout=5)
        assert wire.data_sent(1) == 100 * KIB

    asyncio.run(with_session(scenario))


def test_a_peer_that_keeps_no_windows_is_sent_everything() -> None:
    async def scenario(_reader, wire, session, _codec) -> None:
        await asyncio.wait_for(session.send(1, b"w" * 256 * KIB), timeout=5)
        assert wire.data_sent(1) == 256 * KIB

    asyncio.run(with_session(scenario))


def test_sending_waits_for_the_transport_to_drain() -> None:
    async def scenario(_reader, wire, session, _codec) -> None:
        wire.flowing.clear()
        sending = asyncio.create_task(session.send(1, b"v" * KIB))
        await settle()
        assert not sending.done()
        wire.flowing.set()
        await asyncio.wait_for(sending, timeout=5)

    asyncio.run(with_session(scenario))


def test_a_sender_waiting_for_a_window_stops_when_the_peer_resets_the_stream() -> None:
    async def scenario(reader, wire, session, _codec) -> None:
        reader.feed_data(settings_initial_window(10))
        await settle()
        sending = asyncio.create_task(session.send(1, b"u" * 100))
        await settle(lambda: wire.data_sent(1) == 10)
        reader.feed_data(spdy.control_frame(spdy.RST_STREAM, 0, struct.pack(">II", 1, spdy.RST_CANCEL)))
        with pytest.raises(ConnectionResetError):
            await asyncio.wait_for(sending, timeout=5)

    asyncio.run(with_session(scenario))
