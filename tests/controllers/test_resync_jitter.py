"""Resync periods are jittered as upstream's `ResyncPeriod`: drawn in [`--min-resync-period`, twice it),
once per informer factory (the typed informers share one draw, the metadata-only ones another)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from svc.api.brand import PROFILES
from svc.client.clock import FakeClock
from svc.controllers.context import InformerFactory, jittered_resync
from tests.controllers.fakes import RecordingClient


def fractions(*values: float) -> Callable[[], float]:
    """A random source answering `values` in turn."""
    drawn: Iterator[float] = iter(values)
    return lambda: next(drawn)


def test_each_draw_lands_between_the_minimum_and_twice_it() -> None:
    period = jittered_resync(3600.0, rand=fractions(0.0, 0.25, 0.999999))
    drawn = [period(), period(), period()]
    assert drawn[:2] == [3600.0, 4500.0]
    assert all(3600.0 <= value < 7200.0 for value in drawn)


def test_a_factory_draws_once_for_its_typed_informers_and_once_for_its_metadata_informers() -> None:
    factory = InformerFactory(
        RecordingClient(),  # type: ignore[arg-type]
        PROFILES["svc"],
        clock=FakeClock(),
        resync=jittered_resync(100.0, rand=fractions(0.5, 0.75)),
    )
    namespaces = factory.informer("", "v1", "namespaces")
    pods = factory.informer("", "v1", "pods")
    jobs = factory.metadata_informer("batch", "v1", "jobs")
    assert (namespaces.resync_period, pods.resync_period) == (150.0, 150.0)
    assert jobs.resync_period == 175.0


def test_without_a_period_informers_do_not_resync() -> None:
    factory = InformerFactory(RecordingClient(), PROFILES["svc"], clock=FakeClock())  # type: ignore[arg-type]
    assert factory.informer("", "v1", "namespaces").resync_period == 0.0
