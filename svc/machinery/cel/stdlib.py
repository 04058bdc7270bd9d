"""CEL's standard functions and optionals, with the extension libraries Kubernetes enables
(`strings_ext`, `math_ext`, `lists_ext`) merged in, as plain Python callables.

Every function takes its evaluated arguments (a member call's receiver first) and dispatches on
exact types, raising `NoSuchOverload` otherwise, as cel-go's runtime dispatch does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from svc.machinery.cel import conversions, lists_ext, math_ext, strings_ext
from svc.machinery.cel.re2 import Regexp, compile_re2
from svc.machinery.cel.strings_ext import require_strings
from svc.machinery.cel.values import (
    LISTS,
    NANOS,
    NONE,
    CelError,
    Duration,
    NoSuchOverload,
    Optional,
    Timestamp,
    Uint,
    type_of,
)

Function = Callable[..., Any]


def size(value: Any) -> int:
    tv = type(value)
    if tv in (str, bytes, dict, *LISTS):
        return len(value)
    raise NoSuchOverload("size")


def contains(text: Any, part: Any) -> bool:
    require_strings("contains", text, part)
    return part in text


def starts_with(text: Any, prefix: Any) -> bool:
    require_strings("startsWith", text, prefix)
    return text.startswith(prefix)


def ends_with(text: Any, suffix: Any) -> bool:
    require_strings("endsWith", text, suffix)
    return text.endswith(suffix)


_PATTERNS: dict[str, Regexp] = {}


def compile_regex(pattern: str) -> Regexp:
    """`pattern` with Go's syntax and meaning on RE2 (see `re2`), compiled once per pattern."""
    found = _PATTERNS.get(pattern)
    if found is None:
        found = compile_re2(pattern)
        if len(_PATTERNS) < 4096:
            _PATTERNS[pattern] = found
    return found


def matches(text: Any, pattern: Any) -> bool:
    require_strings("matches", text, pattern)
    return compile_regex(pattern).matches(text)


# -- timestamps and durations ------------------------------------------------------------------


def _calendar(value: Timestamp, zone: Any = None) -> datetime:
    """The calendar time of `value` (to the second) in `zone`: UTC, `[+-]HH:MM` or an IANA name."""
    moment = conversions.to_datetime(value)
    if zone is None:
        return moment
    if type(zone) is not str:
        raise NoSuchOverload("timezone")
    offset = _OFFSET.fullmatch(zone)
    try:
        if offset is not None:
            sign = -1 if offset.group(1) == "-" else 1
            return moment + sign * timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3)))
        return moment.astimezone(ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise CelError(f"unknown time zone {zone}") from err
    except OverflowError as err:
        raise CelError("timestamp out of range") from err


_OFFSET: Final = re.compile(r"([+-]?)(\d{2}):(\d{2})")


def _timestamp_part(name: str, part: Callable[[datetime], int]) -> Function:
    def getter(value: Any, zone: Any = None) -> int:
        if type(value) is not Timestamp:
            raise NoSuchOverload(name)
        return part(_calendar(value, zone))

    return getter


def _time_part(name: str, timestamp: Callable[[datetime], int], unit: int) -> Function:
    def getter(value: Any, zone: Any = None) -> int:
        if type(value) is Duration and zone is None:
            return _truncated(value, unit)
        if type(value) is Timestamp:
            return timestamp(_calendar(value, zone))
        raise NoSuchOverload(name)

    return getter


def _truncated(nanos: int, unit: int) -> int:
    """`nanos / unit` rounded toward zero, as Go's int64(d.Hours())."""
    whole = abs(nanos) // unit
    return whole if nanos >= 0 else -whole


def get_milliseconds(value: Any, zone: Any = None) -> int:
    """The millisecond part: of the second for a timestamp, of the duration's seconds for a
    duration (the conformance vectors' reading, not Go's total milliseconds)."""
    if type(value) is Duration and zone is None:
        return _truncated(value, 1_000_000) - _truncated(value, NANOS) * 1000
    if type(value) is Timestamp:
        _calendar(value, zone)  # an unknown zone is an error here too
        return value % NANOS // 1_000_000
    raise NoSuchOverload("getMilliseconds")


# -- optionals ---------------------------------------------------------------------------------


def optional_of(value: Any) -> Optional:
    return Optional(value)


def optional_none() -> Optional:
    return NONE


def optional_of_non_zero(value: Any) -> Optional:
    return NONE if _is_zero(value) else Optional(value)


def _is_zero(value: Any) -> bool:
    if value is None:
        return True
    if type(value) in (bool, int, Uint, float, str, bytes, dict, *LISTS):
        return not value
    return type(value) is Duration and value == 0


def _optional(function: str, value: Any) -> Optional:
    if type(value) is not Optional:
        raise NoSuchOverload(function)
    return value


def has_value(value: Any) -> bool:
    return _optional("hasValue", value).has_value()


def optional_value(value: Any) -> Any:
    if not _optional("value", value).has_value():
        raise CelError("optional.none() dereference")
    return value.value


def or_value(value: Any, default: Any) -> Any:
    return value.value if _optional("orValue", value).has_value() else default


# ``or`` is lazy in cel-go; the compiler handles it as a macro, see compiler._optional_or.


FUNCTIONS: Final[dict[str, Function]] = {
    "size": size,
    "contains": contains,
    "startsWith": starts_with,
    "endsWith": ends_with,
    "matches": matches,
    "int": conversions.to_int,
    "uint": conversions.to_uint,
    "double": conversions.to_double,
    "string": conversions.to_string,
    "bytes": conversions.to_bytes,
    "bool": conversions.to_bool,
    "dyn": lambda value: value,
    "type": type_of,
    "timestamp": conversions.to_timestamp,
    "duration": conversions.to_duration,
    "getFullYear": _timestamp_part("getFullYear", lambda t: t.year),
    "getMonth": _timestamp_part("getMonth", lambda t: t.month - 1),
    "getDate": _timestamp_part("getDate", lambda t: t.day),
    "getDayOfMonth": _timestamp_part("getDayOfMonth", lambda t: t.day - 1),
    "getDayOfWeek": _timestamp_part("getDayOfWeek", lambda t: (t.weekday() + 1) % 7),
    "getDayOfYear": _timestamp_part("getDayOfYear", lambda t: t.timetuple().tm_yday - 1),
    "getHours": _time_part("getHours", lambda t: t.hour, 3600 * NANOS),
    "getMinutes": _time_part("getMinutes", lambda t: t.minute, 60 * NANOS),
    "getSeconds": _time_part("getSeconds", lambda t: t.second, NANOS),
    "getMilliseconds": get_milliseconds,
    "optional.of": optional_of,
    "optional.none": optional_none,
    "optional.ofNonZeroValue": optional_of_non_zero,
    "hasValue": has_value,
    "value": optional_value,
    "orValue": or_value,
    **strings_ext.FUNCTIONS,
    **math_ext.FUNCTIONS,
    **lists_ext.FUNCTIONS,
}
