"""Pausing the cyclic garbage collector while many objects are decoded at once.

Decoding a list of thousands of objects allocates hundreds of thousands of dicts and lists. Each
allocation counts toward a young collection, and each collection scans what the decode built so
far: all of it alive, none of it cyclic (decoded JSON cannot hold a cycle), so the collections free
nothing and, measured on 10,000 pods, double the decode time. The block must not await, so nothing
else runs while the collector is off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block, and back to its earlier state after."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
