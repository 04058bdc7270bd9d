"""Ages and durations as the upstream tables print them ("5m", "2m3s", "3d4h", "<unknown>").

Upstream rounds with `duration.HumanDuration` of k8s.io/apimachinery; no Python library reproduces its
thresholds, so `human_duration` follows them here. `now` is the clock every age is measured against;
tests replace it to make ages deterministic.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from svc.machinery import wallclock

UNKNOWN = "<unknown>"

_MICROS_PER_SECOND = 1_000_000
_MICROS_PER_MINUTE = 60 * _MICROS_PER_SECOND
_MICROS_PER_HOUR = 60 * _MICROS_PER_MINUTE


def now() -> datetime:
    return wallclock.now_datetime()


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp as stored (`metav1.Time` or `MicroTime`); None stands for Go's zero time."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def human_duration(delta: timedelta) -> str:
    """About two significant figures: seconds below 2m, then m+s below 10m, m below 3h, h+m below 8h, ..."""
    micros = delta // timedelta(microseconds=1)
    seconds = -(-micros // _MICROS_PER_SECOND) if micros < 0 else micros // _MICROS_PER_SECOND
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = micros // _MICROS_PER_MINUTE
    if minutes < 10:
        return _two_units(minutes, "m", seconds % 60, "s")
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = micros // _MICROS_PER_HOUR
    if hours < 8:
        return _two_units(hours, "h", minutes % 60, "m")
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return _two_units(hours // 24, "d", hours % 24, "h")
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        return _two_units(hours // 24 // 365, "y", hours // 24 % 365, "d")
    return f"{hours // 24 // 365}y"


def _two_units(major: int, major_unit: str, minor: int, minor_unit: str) -> str:
    return f"{major}{major_unit}" if minor == 0 else f"{major}{major_unit}{minor}{minor_unit}"


def elapsed(moment: datetime) -> str:
    return human_duration(now() - moment)


def since(value: Any) -> str:
    """Time elapsed since a stored timestamp, or `<unknown>` when it is unset."""
    moment = parse_time(value)
    return UNKNOWN if moment is None else elapsed(moment)


def age(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata")
    return since(metadata.get("creationTimestamp") if isinstance(metadata, dict) else None)
