"""Within one list, message values are remembered by their JSON and encoded once.

The objects of a list share many values (the containers, volumes, tolerations, probes and resources
of pods made from one template), and dumping a value with orjson costs a small part of encoding it.
A message whose values mostly do not repeat (conditions with their own times) stops being
remembered. The memo lasts for one list only: nothing is kept across requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import orjson

from svc.wire.protobuf.wire import Writer

# Values above this size of JSON are written without being remembered: they rarely repeat.
MEMO_LIMIT = 4096
# After this many look-ups of one message's values, a message found less than half the time is no
# longer remembered.
MEMO_TRIAL = 64
# What `memos.get(writer, UNSEEN)` gives for a message not looked up yet in this list (None: given up).
UNSEEN = object()
current_memos: ContextVar[dict | None] = ContextVar("list_memo", default=None)


@contextmanager
def list_memo() -> Iterator[None]:
    """Within the block, equal message values (fields and items of repeated fields) are encoded once."""
    token = current_memos.set({})
    try:
        yield
    finally:
        current_memos.reset(token)


class _Memo:
    """One message's remembered values within a list, and how often looking one up found it."""

    __slots__ = ("entries", "found", "looked")

    def __init__(self) -> None:
        self.entries: dict[bytes, bytes] = {}
        self.looked = self.found = 0


def remembered(memos: dict[Writer, _Memo | None], write: Writer, value: object) -> bytes | None:
    """The value's bytes, from the memo or written and kept; None for a value to write directly: one
    that is large or not JSON (the writer reports its errors), or of a message whose values have
    mostly not repeated in this list, which stops being remembered."""
    memo = memos.get(write, UNSEEN)
    if memo is None:
        return None
    if memo is UNSEEN:
        memo = memos[write] = _Memo()
    elif memo.looked >= MEMO_TRIAL and memo.found * 2 < memo.looked:
        memos[write] = None
        return None
    try:
        key = orjson.dumps(value)  # JSON tells 1, 1.0 and true apart; NaN, never stored, dumps as null
    except TypeError:
        return None
    if len(key) > MEMO_LIMIT:
        return None
    memo.looked += 1
    data = memo.entries.get(key)
    if data is None:
        buf = bytearray()
        write(value, buf)
        data = memo.entries[key] = bytes(buf)
    else:
        memo.found += 1
    return data
