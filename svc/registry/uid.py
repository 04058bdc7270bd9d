"""The uid every create stamps: a random (version 4) UUID in its text form.

`str(uuid.uuid4())` builds a UUID object and asks the kernel for 16 bytes each time; here a system
call costs more than the rest of the uid (it measured about 13 µs under load, a visible share of a
ConfigMap create). So the random bytes are drawn from the kernel 4 KiB at a time and handed out 16 by
16, and the text is formatted without the object. A forked child starts with an empty pool, so it never
hands out its parent's bytes.
"""

from __future__ import annotations

import os
import threading

_POOL_BYTES = 4096
_UID_BYTES = 16


class _RandomPool:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool = b""
        self._offset = 0

    def take(self) -> bytes:
        with self._lock:
            if self._offset >= len(self._pool):
                self._pool, self._offset = os.urandom(_POOL_BYTES), 0
            start = self._offset
            self._offset = start + _UID_BYTES
            return self._pool[start : start + _UID_BYTES]

    def forget(self) -> None:
        self._lock = threading.Lock()
        self._pool, self._offset = b"", 0


_RANDOM = _RandomPool()
os.register_at_fork(after_in_child=_RANDOM.forget)


def new_uid() -> str:
    """What `str(uuid.uuid4())` writes: version 4, RFC 4122 variant, lower-case hex."""
    raw = bytearray(_RANDOM.take())
    raw[6] = raw[6] & 0x0F | 0x40
    raw[8] = raw[8] & 0x3F | 0x80
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
