"""Pausing the cyclic garbage collector while many objects are decoded at once.

Decoding a list of thousands of objects allocates hundreds of thousands of dicts and lists. Each
allocation counts toward a young collection, and each collection scans what the decode built so
far: all of it alive, none of it cyclic (decoded JSON cannot hold a cycle), so the collections free
nothing and, measured on 10,000 pods, double the decode time. The block must not await, so nothing
else runs while the collector is off.
"""

from __future__ import annotations

import gc
import time
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


FREEZE_AFTER_PAUSE = 0.02
"""An older-generation collection that took this long (seconds of the collecting thread's CPU, so a
busy machine's preemption does not count) has its survivors frozen."""

_collection_started: list[float] = [0.0]


def _freeze_survivors(phase: str, info: dict[str, int]) -> None:
    if info["generation"] == 0:
        return
    if phase == "start":
        _collection_started[0] = time.thread_time()
    elif time.thread_time() - _collection_started[0] > FREEZE_AFTER_PAUSE:
        gc.freeze()


def freeze_after_long_collections() -> None:
    """Once a collection of the older generations pauses the process for long, move what survived
    it out of the collector's generations.

    A long-running daemon's caches grow after start-up (every object a watch adds stays until it
    changes), and each collection of the older generations rescans all that has come since: at
    10,000 namespaces, pauses of a tenth to a half second, felt by every request in flight. What
    survived is reachable; frozen, it is no longer scanned, and the next collections scan only
    what came after. Frozen objects are still freed by reference counting; only a cycle among
    objects alive at that collection that die after it is never collected (a request in flight,
    say). Freezing only after a long pause bounds that: a long pause takes a few hundred thousand
    surviving objects, so it comes with growth, not with a process at rest or in steady churn.
    """
    if _freeze_survivors not in gc.callbacks:
        gc.callbacks.append(_freeze_survivors)
