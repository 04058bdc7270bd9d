"""Type conversions (`int()`, `string()`, `timestamp()`, `duration()`...) with cel-go's texts."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from svc.machinery.cel.values import (
    INT_MAX,
    INT_MIN,
    UINT_MAX,
    CelError,
    NoSuchOverload,
    Uint,
    type_of,
)

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MAX_SECONDS: Final = 9223372036.854775807
_DURATION_PART: Final = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNITS: Final = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1,
    "m": 60,
    "h": 3600,
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
    if tv is datetime:
        return int((value - _EPOCH).total_seconds() // 1)
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
    if tv is datetime:
        return format_timestamp(value)
    if tv is timedelta:
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


def to_timestamp(value: Any) -> datetime:
    tv = type(value)
    if tv is datetime:
        return value
    if tv is int:
        try:
            moment = _EPOCH + timedelta(seconds=value)
        except OverflowError as err:
            raise CelError("timestamp out of range") from err
        return moment
    if tv is str:
        return parse_timestamp(value)
    raise NoSuchOverload("timestamp")


def parse_timestamp(text: str) -> datetime:
    match = re.fullmatch(r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})", text)
    if match is None:
        raise CelError(f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": cannot parse')
    date, clock, fraction, zone = match.groups()
    micros = (fraction or ".")[1:7].ljust(6, "0")
    try:
        moment = datetime.fromisoformat(f"{date}T{clock}.{micros}{'+00:00' if zone in 'Zz' else zone}")
    except ValueError as err:
        raise CelError(f'parsing time "{text}": out of range') from err
    return moment.astimezone(UTC)


def format_timestamp(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += "." + f"{moment.microsecond:06d}".rstrip("0")
    return text + "Z"


def to_duration(value: Any) -> timedelta:
    if type(value) is timedelta:
        return value
    if type(value) is str:
        return parse_duration(value)
    raise NoSuchOverload("duration")


def parse_duration(text: str) -> timedelta:
    """Go's `time.ParseDuration`, as cel-go uses it."""
    body = text.lstrip("+-")
    negative = text.startswith("-")
    if body == "0":
        return timedelta(0)
    pos, seconds = 0, 0.0
    for match in _DURATION_PART.finditer(body):
        if match.start() != pos:
            break
        seconds += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(body) or not body:
        raise CelError(f'time: invalid duration "{text}"')
    if seconds > _MAX_SECONDS:
        raise CelError("duration out of range")
    return timedelta(seconds=-seconds if negative else seconds)


def format_duration(value: timedelta) -> str:
    seconds = value.total_seconds()
    text = format_double(seconds) if seconds != int(seconds) else str(int(seconds))
    return text + "s"
