"""Percentiles, throughput and CPU shares of a measured batch (what every row of the report is made of)."""

import asyncio
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.client import CpuClock, CpuReading, Measurement, drive, percentile, rest_of_machine


def test_nearest_rank_picks_an_observed_sample() -> None:
    ordered = [float(value) for value in range(1, 101)]
    assert percentile(ordered, 0.50) == 50.0
    assert percentile(ordered, 0.99) == 99.0
    assert percentile(ordered, 1.0) == 100.0


def test_the_lowest_fraction_is_the_smallest_sample() -> None:
    assert percentile([3.0, 4.0], 0.0) == 3.0


def test_no_samples_give_nan() -> None:
    assert math.isnan(percentile([], 0.5))


def test_a_fraction_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="within \\[0, 1\\]"):
        percentile([1.0], 99)


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1), st.floats(0, 1), st.floats(0, 1))
def test_percentiles_are_samples_and_grow_with_the_fraction(samples: list[float], low: float, high: float) -> None:
    ordered = sorted(samples)
    low, high = min(low, high), max(low, high)
    assert percentile(ordered, low) in ordered
    assert percentile(ordered, low) <= percentile(ordered, high)


def test_rate_is_operations_per_wall_second() -> None:
    measured = Measurement(ops=500, seconds=0.25, latencies=[0.001] * 500)
    assert measured.rate == 2000.0


def test_a_saturated_process_is_marked_in_the_cpu_note() -> None:
    measured = Measurement(ops=1, seconds=2.0, latencies=[0.1], client_cpu=1.9, server_cpu=1.0)
    assert measured.cpu_note() == "server CPU 50%, client CPU 95% (saturated), other processes 0%"


def test_the_rest_of_the_machine_is_its_busy_time_less_both_processes() -> None:
    before = CpuReading(wall=0.0, client=1.0, server=2.0, machine=10.0)
    after = CpuReading(wall=1.0, client=1.5, server=3.0, machine=12.0)
    assert rest_of_machine(before, after) == 0.5


def test_the_rest_of_the_machine_is_never_negative() -> None:
    before = CpuReading(wall=0.0, client=0.0, server=0.0, machine=0.0)
    after = CpuReading(wall=1.0, client=0.6, server=0.6, machine=1.0)
    assert rest_of_machine(before, after) == 0.0


def _run(repeatable: bool, machine: list[float]) -> tuple[Measurement, list[int]]:
    calls: list[int] = []
    readings = iter(machine)
    clock = CpuClock(machine=lambda: next(readings))

    async def operation(index: int) -> None:
        calls.append(index)

    return asyncio.run(drive(operation, count=3, concurrency=1, clock=clock, repeatable=repeatable)), calls


def test_a_disturbed_repeatable_batch_runs_again_and_keeps_the_quiet_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bench.client.RETRY_PAUSE", 0.0)
    measured, calls = _run(True, [0.0, 5.0, 5.0, 5.0])
    assert (measured.attempts, len(calls), measured.rest_cpu) == (2, 6, 0.0)


def test_a_batch_that_cannot_repeat_runs_once_even_when_disturbed() -> None:
    measured, calls = _run(False, [0.0, 5.0])
    assert (measured.attempts, len(calls)) == (1, 3)
    assert measured.disturbed
