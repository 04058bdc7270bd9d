"""Next scheduled times, as robfig/cron computes them for CronJobs."""

from __future__ import annotations

import datetime

import pytest

from svc.machinery.cron import parse_schedule

NOW = datetime.datetime(2026, 11, 25, 13, 52, 30, tzinfo=datetime.UTC)  # a Wednesday


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("*/5 * * * *", "2026-11-25T13:55:00+00:00"),
        ("0 9 * * 1", "2026-11-30T09:00:00+00:00"),
        ("30 2 1 * *", "2026-12-01T02:30:00+00:00"),
        ("@hourly", "2026-11-25T14:00:00+00:00"),
        ("@every 90s", "2026-11-25T13:54:00+00:00"),
        ("0 0 13 * 5", "2026-11-27T00:00:00+00:00"),
        ("TZ=Europe/Paris 0 9 * * *", "2026-11-26T08:00:00+00:00"),
        ("0 0 29 2 *", "2028-02-29T00:00:00+00:00"),
    ],
)
def test_next_time(spec: str, expected: str) -> None:
    assert parse_schedule(spec).next_after(NOW).isoformat() == expected


def test_the_time_zone_field_applies_when_the_spec_has_no_prefix() -> None:
    assert parse_schedule("0 9 * * *", "Asia/Tokyo").next_after(NOW).isoformat() == "2026-11-26T00:00:00+00:00"
