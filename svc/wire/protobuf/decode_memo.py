"""Sub-messages read before are not decoded again: their JSON is kept, and orjson reads it back.

A client decodes the same bytes over and over: the containers, volumes and tolerations of the pods
of one template, the spec of a pod in each watch event of its status, the managed fields of objects
written by one manager. Reading a message field by field in Python costs several times what orjson
takes to build the same dict from its JSON, so a message seen before is built from the JSON kept for
its bytes: a fresh dict each time (callers may change what they get), equal to what decoding gives,
as the decoded value depends on the message's bytes alone and orjson writes and reads every value a
decoder makes (strings, 64-bit integers, booleans, JSON of raw extensions) unchanged.

Per message, a trial of look-ups decides whether its values repeat: a message found less than a
quarter of the time (object metadata, statuses) is decoded directly for a while, then tried again.
The kept JSON is bounded per message; a full memo starts over.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson

Decode = Callable[[bytes, int, int], dict]

# Messages shorter than this are decoded directly: slicing and hashing their bytes costs about as much.
MIN_SIZE = 96
# Look-ups per trial, and how many decodes follow a trial that found too few, before the next trial.
TRIAL = 128
PAUSE = 2048
# Bytes of payload and JSON kept per message.
BUDGET = 1 << 20


def memoized(decode: Decode) -> Decode:
    """A decoder giving what `decode` gives, from kept JSON for bytes it has decoded before."""
    entries: dict[bytes, bytes] = {}
    kept = looked = found = paused = 0

    def read(buf: bytes, pos: int, end: int) -> dict:
        nonlocal kept, looked, found, paused
        if end - pos < MIN_SIZE:
            return decode(buf, pos, end)
        if paused:
            paused -= 1
            return decode(buf, pos, end)
        payload = buf[pos:end]
        data = entries.get(payload)
        looked += 1
        if data is not None:
            found += 1
            value = orjson.loads(data)
        else:
            value = decode(buf, pos, end)
            try:
                data = orjson.dumps(value)
            except TypeError:  # not a value a decoder makes; kept out rather than risk changing it
                return value
            kept += len(payload) + len(data)
            if kept > BUDGET:
                entries.clear()
                kept = len(payload) + len(data)
            entries[payload] = data
        if looked == TRIAL:
            if found * 4 < looked:
                paused = PAUSE
                entries.clear()
                kept = 0
            looked = found = 0
        return value

    return read
