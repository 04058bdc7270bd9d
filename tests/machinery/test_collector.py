"""collector_paused: the cyclic collector is off inside the block and as it was after; and the
survivors of a long older-generation collection are frozen."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from svc.machinery import collector
from svc.machinery.collector import collector_paused, freeze_after_long_collections


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_in_the_block_turns_the_collector_back_on() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError
    assert gc.isenabled()


def test_a_collector_already_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.fixture
def freezing(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """The freezing callback installed for the test only."""
    freeze_after_long_collections()
    yield monkeypatch
    gc.callbacks.remove(collector._freeze_survivors)


def test_a_long_collection_of_the_older_generations_freezes_its_survivors(freezing: pytest.MonkeyPatch) -> None:
    freezing.setattr(collector, "FREEZE_AFTER_PAUSE", 0.0)
    frozen = gc.get_freeze_count()
    survivor = [[index] for index in range(1000)]
    gc.collect(1)
    assert gc.get_freeze_count() >= frozen + len(survivor)


def test_a_young_collection_freezes_nothing(freezing: pytest.MonkeyPatch) -> None:
    freezing.setattr(collector, "FREEZE_AFTER_PAUSE", 0.0)
    frozen = gc.get_freeze_count()
    gc.collect(0)
    assert gc.get_freeze_count() <= frozen  # frozen objects may still be freed meanwhile


def test_a_short_collection_freezes_nothing(freezing: pytest.MonkeyPatch) -> None:
    freezing.setattr(collector, "FREEZE_AFTER_PAUSE", 3600.0)
    frozen = gc.get_freeze_count()
    gc.collect(2)
    assert gc.get_freeze_count() <= frozen  # frozen objects may still be freed meanwhile


def test_the_callback_is_installed_once() -> None:
    freeze_after_long_collections()
    freeze_after_long_collections()
    try:
        assert gc.callbacks.count(collector._freeze_survivors) == 1
    finally:
        gc.callbacks.remove(collector._freeze_survivors)
