"""Initial events are made a batch at a time from a shared sequence, and let it go once sent."""

from __future__ import annotations

import gc

from svc.registry.initial_events import BATCH_BYTES, InitialEvents
from svc.registry.watch import WatchEvent
from svc.storage.cached_object import CachedObject

OBJECT_BYTES = 5_000


def _objects(count: int) -> list[CachedObject]:
    return [
        CachedObject.of(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}, "data": {"k": "x" * OBJECT_BYTES}}
        )
        for i in range(count)
    ]


def _added(item: CachedObject) -> WatchEvent:
    return WatchEvent("ADDED", cached=item)


def _bookmark() -> WatchEvent:
    return WatchEvent("BOOKMARK", {"metadata": {"resourceVersion": "9"}})


def test_batches_hold_about_batch_bytes_of_objects_in_order_then_the_bookmark() -> None:
    shared = _objects(100)
    initial = InitialEvents(shared, range(10, 90), lambda item: True, _added, [_bookmark()])
    batches = []
    while initial.pending:
        batches.append(initial.take())
    sent = [event.cached for batch in batches for event in batch if event.cached is not None]
    assert sent == shared[10:90]
    assert batches[-1][-1].type == "BOOKMARK"
    assert all(
        sum(len(e.cached.data) for e in batch if e.cached) < BATCH_BYTES + OBJECT_BYTES + 200 for batch in batches
    )
    assert len(batches) > 10


def test_only_selected_items_become_events() -> None:
    shared = _objects(10)
    initial = InitialEvents(shared, range(10), lambda item: item is shared[3], _added, [])
    assert [event.cached for event in initial.take()] == [shared[3]]
    assert not initial.pending


def test_the_shared_sequence_is_let_go_once_past_its_end() -> None:
    shared = _objects(20)
    initial = InitialEvents(shared, range(20), lambda item: True, _added, [])
    initial.take()
    assert any(referent is shared for referent in gc.get_referents(initial.__dict__))
    while initial.pending:
        initial.take()
    assert not any(referent is shared for referent in gc.get_referents(initial.__dict__))
