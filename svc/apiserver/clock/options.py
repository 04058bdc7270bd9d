"""`--clock` and `--fake-clock-start`: which time the server writes into objects and checks tokens against.

A fake clock stands still until a test advances it through `/testing/v1/clock/advance`, so it needs
`--enable-test-endpoints`; without them it could never move, which is refused at start."""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from datetime import datetime

from svc.machinery.wallclock import FakeWallClock

CLOCKS = ("real", "fake")


@dataclass
class ClockOptions:
    fake: bool = False
    start: float = 0.0  # seconds since the epoch; 0: the real time at start-up

    def build(self) -> FakeWallClock | None:
        """The fake clock, set to its start; None for the real time."""
        if not self.fake:
            return None
        return FakeWallClock(self.start or float(int(time.time())))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--clock",
        help="real (default) or fake: time that stands still until advanced through /testing/v1/clock/advance "
        "(needs --enable-test-endpoints)",
    )
    parser.add_argument(
        "--fake-clock-start",
        help="RFC 3339 time the fake clock starts at (default: the real time at start-up)",
    )


def from_args(args: argparse.Namespace, *, test_endpoints: bool) -> ClockOptions:
    kind = args.clock or "real"
    if kind not in CLOCKS:
        raise ValueError(f'--clock: unknown clock "{kind}", expected one of: real, fake')
    start = _start(args.fake_clock_start) if args.fake_clock_start else 0.0
    if kind == "real":
        if args.fake_clock_start:
            raise ValueError("--fake-clock-start needs --clock=fake")
        return ClockOptions()
    if not test_endpoints:
        raise ValueError("--clock=fake needs --enable-test-endpoints: the clock is advanced through /testing/v1/clock")
    return ClockOptions(fake=True, start=start)


def _start(text: str) -> float:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None or not math.isfinite(seconds := moment.timestamp()) or seconds <= 0:
        raise ValueError(f'--fake-clock-start: "{text}" is not an RFC 3339 time after 1970, e.g. 2030-01-01T00:00:00Z')
    return seconds
