"""collector_paused: the cyclic collector is off inside the block and as it was after."""

from __future__ import annotations

import gc

import pytest

from svc.machinery.collector import collector_paused


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
