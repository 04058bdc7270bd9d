"""CronJob schedules: parsed with the error texts upstream's parser produces, and their next times.

Upstream parses `spec.schedule` with robfig/cron's standard parser (five fields or an `@` descriptor,
an optional `TZ=`/`CRON_TZ=` prefix) and reports the first error it returns; no Python cron package
words its errors that way, so the grammar is written here, and with it robfig/cron's `Next` (a day
matches when both day fields allow it if either is `*`, else when one does). Time zones are looked up
in the IANA database, as Go's `time.LoadLocation` does.
"""

from __future__ import annotations

import datetime
import re
import zoneinfo
from dataclasses import dataclass
from typing import Final, NamedTuple

from svc.machinery.duration import parse_duration
from svc.machinery.gotext import quote


class _Bounds(NamedTuple):
    low: int
    high: int
    names: dict[str, int]


_MONTH_NAMES: Final = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTHS: Final = {name: index + 1 for index, name in enumerate(_MONTH_NAMES)}
_DAYS: Final = {name: index for index, name in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}
_FIELDS: Final = (
    _Bounds(0, 59, {}),
    _Bounds(0, 23, {}),
    _Bounds(1, 31, {}),
    _Bounds(1, 12, _MONTHS),
    _Bounds(0, 6, _DAYS),
)
_DESCRIPTORS: Final = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_DURATION: Final = re.compile(r"[-+]?(([0-9]*(\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h))+|0")
_TIME_ZONE_PART: Final = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")
_INT64_MAX: Final = (1 << 63) - 1


class CronError(ValueError):
    pass


def _integer(text: str) -> int:
    """Go's `strconv.Atoi` then the parser's sign check, with their texts."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise CronError(f"failed to parse int from {text}: strconv.Atoi: parsing {quote(text)}: invalid syntax")
    number = int(text)
    if abs(number) > _INT64_MAX:
        raise CronError(f"failed to parse int from {text}: strconv.Atoi: parsing {quote(text)}: value out of range")
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed: {text}")
    return number


def _int_or_name(text: str, bounds: _Bounds) -> int:
    named = bounds.names.get(text.lower())
    return named if named is not None else _integer(text)


def _check_range(expression: str, bounds: _Bounds) -> set[int]:
    range_and_step = expression.split("/")
    low_and_high = range_and_step[0].split("-")
    if low_and_high[0] in ("*", "?"):
        start, end = bounds.low, bounds.high
    else:
        start = _int_or_name(low_and_high[0], bounds)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], bounds)
        else:
            raise CronError(f"too many hyphens: {expression}")
    step = 1
    if len(range_and_step) == 2:
        step = _integer(range_and_step[1])
        if len(low_and_high) == 1:
            end = bounds.high
    elif len(range_and_step) > 2:
        raise CronError(f"too many slashes: {expression}")
    if start < bounds.low:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.low}): {expression}")
    if end > bounds.high:
        raise CronError(f"end of range ({end}) above maximum ({bounds.high}): {expression}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expression}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expression}")
    return set(range(start, end + 1, step))


_DESCRIBED: Final = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_SEARCH_YEARS: Final = 5


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule: the allowed values per field, or a fixed period (`@every`)."""

    minutes: frozenset[int] = frozenset()
    hours: frozenset[int] = frozenset()
    days: frozenset[int] = frozenset()
    months: frozenset[int] = frozenset()
    weekdays: frozenset[int] = frozenset()
    any_day: bool = False
    any_weekday: bool = False
    zone: str = ""
    every: float = 0.0

    def _day_matches(self, moment: datetime.datetime) -> bool:
        day = moment.day in self.days
        weekday = (moment.isoweekday() % 7) in self.weekdays
        return day and weekday if self.any_day or self.any_weekday else day or weekday

    def next_after(self, moment: datetime.datetime) -> datetime.datetime | None:
        """The first scheduled time strictly after `moment` (aware), in UTC; None if none within
        five years (robfig/cron gives up the same way)."""
        if self.every:
            return (moment + datetime.timedelta(seconds=max(self.every, 1))).replace(microsecond=0)
        zone: datetime.tzinfo = datetime.UTC if self.zone in ("", "UTC", "Local") else zoneinfo.ZoneInfo(self.zone)
        current = moment.astimezone(zone).replace(second=0, microsecond=0) + datetime.timedelta(minutes=1)
        limit = current.year + _SEARCH_YEARS
        while current.year <= limit:
            if current.month not in self.months:
                year, month = (current.year + 1, 1) if current.month == 12 else (current.year, current.month + 1)
                current = current.replace(year=year, month=month, day=1, hour=0, minute=0)
                continue
            if not self._day_matches(current):
                current = (current + datetime.timedelta(days=1)).replace(hour=0, minute=0)
                continue
            if current.hour not in self.hours:
                current = (current + datetime.timedelta(hours=1)).replace(minute=0)
                continue
            if current.minute not in self.minutes:
                current += datetime.timedelta(minutes=1)
                continue
            return current.astimezone(datetime.UTC)
        return None


def parse_schedule(spec: str, zone: str = "") -> Schedule:
    """The schedule of `spec`; `zone` is `spec.timeZone` (a `TZ=` prefix in the spec wins)."""
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space = spec.find(" ")
        zone = spec[spec.index("=") + 1 : space if space >= 0 else len(spec) - 1]
        if not zone_exists(zone):
            raise CronError(f"provided bad location {zone}: unknown time zone {zone}")
        spec = spec[space:].strip() if space >= 0 else ""
    if spec.startswith("@"):
        if spec.startswith("@every "):
            duration = spec[len("@every ") :]
            if not _DURATION.fullmatch(duration):
                raise CronError(f"failed to parse duration {spec}: time: invalid duration {quote(duration)}")
            return Schedule(every=parse_duration(duration), zone=zone)
        if spec not in _DESCRIPTORS:
            raise CronError(f"unrecognized descriptor: {spec}")
        spec = _DESCRIBED[spec]
    fields = spec.split()
    if len(fields) != len(_FIELDS):
        raise CronError(f"expected exactly {len(_FIELDS)} fields, found {len(fields)}: [{' '.join(fields)}]")
    allowed = []
    for text, bounds in zip(fields, _FIELDS, strict=True):
        values: set[int] = set()
        for expression in (part for part in text.split(",") if part):
            values |= _check_range(expression, bounds)
        allowed.append(frozenset(values))
    return Schedule(
        minutes=allowed[0],
        hours=allowed[1],
        days=allowed[2],
        months=allowed[3],
        weekdays=frozenset(day % 7 for day in allowed[4]),
        any_day=fields[2] in ("*", "?"),
        any_weekday=fields[4] in ("*", "?"),
        zone=zone,
    )


def schedule_errors(schedule: str) -> list[str]:
    try:
        parse_schedule(schedule)
    except CronError as error:
        return [str(error)]
    return []


def zone_exists(zone: str) -> bool:
    """Whether Go's `time.LoadLocation` would load `zone` ("" is UTC)."""
    if zone in ("", "UTC", "Local"):
        return True
    try:
        zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def time_zone_errors(zone: str) -> list[str]:
    """Upstream's `validateTimeZone` for a set `spec.timeZone`."""
    if not zone:
        return ["timeZone must be nil or non-empty string"]
    for part in zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.fullmatch(part):
            return [f"unknown time zone {zone}"]
    errors = []
    if zone.lower() == "local":
        errors.append("timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones")
    if not zone_exists(zone):
        errors.append(f"unknown time zone {zone}")
    return errors
