"""Type conversions (`int()`, `string()`, `timestamp()`, `duration()`...) with cel-go's texts."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from svc.machinery.cel.values import (
    INT_MAX,
    INT_MIN,
    NANOS,
    UINT_MAX,
    CelError,
    Duration,
    NoSuchOverload,
    Timestamp,
    Uint,
    duration_of,
    timestamp_of,
    type_of,
)

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_RFC3339: Final = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})")
_DURATION_PART: Final = re.compile(r"(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)")
_UNITS: Final = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": NANOS,
    "m": 60 * NANOS,
    "h": 3600 * NANOS,
}
_TRUE: Final = frozenset(("1", "t", "true", "TRUE", "True"))
_FALSE: Final = frozenset(("0", "f", "false", "FALSE", "False"))


def to_int(value: Any) -> int:
    tv = type(value)
    if tv is int:
        return value
    if tv is Uint:
        if value > INT_MAX:
            raise CelError("range error converting uint to int")
        return int(value)
    if tv is float:
        if math.isnan(value) or not (INT_MIN < value < 2.0**63):
            raise CelError(f"range error converting {format_double(value)} to int")
        return int(value)
    if tv is str:
        try:
            return _in_int_range(int(value, 10))
        except ValueError as err:
            raise CelError(f"cannot convert '{value}' to int") from err
    if tv is Timestamp:
        return value // NANOS
    raise NoSuchOverload("int")


def _in_int_range(number: int) -> int:
    if not INT_MIN <= number <= INT_MAX:
        raise CelError("integer overflow")
    return number


def to_uint(value: Any) -> Uint:
    tv = type(value)
    if tv is Uint:
        return value
    if tv is int:
        if value < 0:
            raise CelError("range error converting int to uint")
        return Uint(value)
    if tv is float:
        if math.isnan(value) or not (0 <= value < 2.0**64):
            raise CelError(f"range error converting {format_double(value)} to uint")
        return Uint(int(value))
    if tv is str:
        try:
            number = int(value, 10)
        except ValueError as err:
            raise CelError(f"cannot convert '{value}' to uint") from err
        if not 0 <= number <= UINT_MAX:
            raise CelError("unsigned integer overflow")
        return Uint(number)
    raise NoSuchOverload("uint")


def to_double(value: Any) -> float:
    tv = type(value)
    if tv is float:
        return value
    if tv is int or tv is Uint:
        return float(value)
    if tv is str:
        try:
            return float(value)
        except ValueError as err:
            raise CelError(f"cannot convert '{value}' to double") from err
    raise NoSuchOverload("double")


def format_double(value: float) -> str:
    """Go's `strconv.FormatFloat(v, 'g', -1, 64)`, which cel-go's `string(double)` uses."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    digits, exponent = _shortest(value)
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        sign = "-" if value < 0 else ""
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    return ("-" if value < 0 else "") + _positional(digits, exponent)


def _shortest(value: float) -> tuple[str, int]:
    text = repr(abs(value))
    if "e" in text:
        mantissa, _, exp = text.partition("e")
        digits = mantissa.replace(".", "").rstrip("0") or "0"
        return digits, int(exp)
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    if whole != "0":
        return (whole + fraction).rstrip("0") or "0", len(whole) - 1
    stripped = fraction.lstrip("0")
    return stripped, -(len(fraction) - len(stripped)) - 1


def _positional(digits: str, exponent: int) -> str:
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + digits
    if len(digits) <= exponent + 1:
        return digits + "0" * (exponent + 1 - len(digits))
    return digits[: exponent + 1] + "." + digits[exponent + 1 :]


def to_string(value: Any) -> str:
    tv = type(value)
    if tv is str:
        return value
    if tv is bool:
        return "true" if value else "false"
    if tv is int or tv is Uint:
        return str(int(value))
    if tv is float:
        return format_double(value)
    if tv is bytes:
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as err:
            raise CelError("invalid UTF-8 in bytes, cannot convert to string") from err
    if tv is Timestamp:
        return format_timestamp(value)
    if tv is Duration:
        return format_duration(value)
    stringify = getattr(value, "cel_string", None)
    if stringify is not None:
        return stringify()
    raise NoSuchOverload("string")


def to_bytes(value: Any) -> bytes:
    if type(value) is bytes:
        return value
    if type(value) is str:
        return value.encode("utf-8")
    raise NoSuchOverload("bytes")


def to_bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    if type(value) is str:
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise CelError("type conversion error from 'string' to 'bool'")
    raise NoSuchOverload("bool")


def to_type(value: Any) -> Any:
    return type_of(value)


def to_timestamp(value: Any) -> Timestamp:
    tv = type(value)
    if tv is Timestamp:
        return value
    if tv is int:
        return timestamp_of(value * NANOS)
    if tv is str:
        return parse_timestamp(value)
    raise NoSuchOverload("timestamp")


def parse_timestamp(text: str) -> Timestamp:
    """RFC 3339 with up to nanosecond fractions, as cel-go's `timestamp(string)`."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise CelError(f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": cannot parse')
    date, clock, fraction, zone = match.groups()
    try:
        moment = datetime.fromisoformat(f"{date}T{clock}{'+00:00' if zone in 'Zz' else zone}")
    except ValueError as err:
        raise CelError(f'parsing time "{text}": out of range') from err
    since = moment - _EPOCH
    return timestamp_of((since.days * 86400 + since.seconds) * NANOS + int((fraction or "0").ljust(9, "0")))


def to_datetime(value: Timestamp) -> datetime:
    """The UTC calendar time of a timestamp, to the second (the fraction stays in the int)."""
    return _EPOCH + timedelta(seconds=value // NANOS)


def format_timestamp(value: Timestamp) -> str:
    """Go's RFC 3339 with nanoseconds, trailing zeros of the fraction dropped."""
    moment = to_datetime(value)
    text = (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
    )
    fraction = value % NANOS
    if fraction:
        text += "." + f"{fraction:09d}".rstrip("0")
    return text + "Z"


def to_duration(value: Any) -> Duration:
    if type(value) is Duration:
        return value
    if type(value) is str:
        return parse_duration(value)
    raise NoSuchOverload("duration")


def parse_duration(text: str) -> Duration:
    """Go's `time.ParseDuration` in integer nanoseconds, as cel-go uses it."""
    body = text.lstrip("+-")
    negative = text.startswith("-")
    if body == "0":
        return Duration(0)
    pos, nanos = 0, 0
    for match in _DURATION_PART.finditer(body):
        whole, fraction, unit = match.groups()
        if match.start() != pos or not (whole or fraction):
            break
        scale = _UNITS[unit]
        nanos += int(whole or "0") * scale
        if fraction:
            nanos += int(fraction) * scale // 10 ** len(fraction)
        pos = match.end()
    if pos != len(body) or not body:
        raise CelError(f'time: invalid duration "{text}"')
    return duration_of(-nanos if negative else nanos)


def format_duration(value: Duration) -> str:
    """cel-go's `string(duration)`: the seconds as Go's shortest `'f'` float, then `s`."""
    seconds = value / NANOS
    if seconds == 0:
        return "0s"
    digits, exponent = _shortest(seconds)
    return ("-" if seconds < 0 else "") + _positional(digits, exponent) + "s"
