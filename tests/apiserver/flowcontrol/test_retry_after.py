"""Retry-After grows while a level keeps rejecting and shrinks when rejections stop."""

from __future__ import annotations

from svc.apiserver.flowcontrol.retry_after import MAX_RETRY_AFTER, RetryAfter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_it_starts_at_one_second() -> None:
    assert RetryAfter().seconds("any") == 1


def test_sustained_rejections_double_it_up_to_the_maximum_and_quiet_lowers_it() -> None:
    clock = Clock()
    tracker = RetryAfter(clock)
    for _ in range(120):
        for _ in range(200):
            tracker.record("low")
        clock.now += 1
    assert tracker.seconds("low") == MAX_RETRY_AFTER
    clock.now += 40  # a quiet spell longer than the window
    tracker.record("low")
    assert tracker.seconds("low") == MAX_RETRY_AFTER - 1
    assert tracker.seconds("other") == 1
