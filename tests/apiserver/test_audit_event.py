"""Audit event stamps: upstream's MicroTime, the same text whichever second was formatted before."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from svc.apiserver.audit.event import timestamp


@pytest.mark.parametrize(
    "seconds",
    [0.0, 1764097000.123456, 1764097000.9999996, 1764097001.0000004, 1727618625.3886065, 1764097000.5],
)
def test_timestamps_are_rfc3339_with_microseconds_in_utc(seconds: float) -> None:
    expected = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert timestamp(seconds) == expected


def test_a_new_second_is_formatted_afresh() -> None:
    assert timestamp(1764097000.25) == "2025-11-25T18:56:40.250000Z"
    assert timestamp(1764097061.5) == "2025-11-25T18:57:41.500000Z"
