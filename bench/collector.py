"""In-process figures run under the server's garbage-collector settings.

The server freezes what start-up loaded and raises the first generation's threshold
(`svc.apiserver.main`); the bench process's own heap (its objects, the scenarios run before) would
otherwise lengthen the collections the measured work triggers, which the server does not pay.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from svc.apiserver.main import YOUNG_COLLECTION_THRESHOLD


@contextmanager
def server_collector() -> Iterator[None]:
    """What exists beforehand frozen, the server's first-generation threshold; restored after."""
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
