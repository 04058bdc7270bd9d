"""CEL's standard functions plus the extension libraries Kubernetes enables (strings, math,
encoders, sets, lists, optionals), as plain Python callables.

Every function takes its evaluated arguments (a member call's receiver first) and dispatches on
exact types, raising `NoSuchOverload` otherwise, as cel-go's runtime dispatch does.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from svc.machinery.cel import conversions, formatting
from svc.machinery.cel.operators import NUMBERS, compare, contained_in, equals
from svc.machinery.cel.values import (
    NONE,
    CelError,
    NoSuchOverload,
    Optional,
    Uint,
    check_int,
    type_of,
)

Function = Callable[..., Any]


def size(value: Any) -> int:
    tv = type(value)
    if tv in (str, bytes, list, tuple, dict):
        return len(value)
    raise NoSuchOverload("size")


def _strings(function: str, *values: Any) -> None:
    if any(type(v) is not str for v in values):
        raise NoSuchOverload(function)


def contains(text: Any, part: Any) -> bool:
    _strings("contains", text, part)
    return part in text


def starts_with(text: Any, prefix: Any) -> bool:
    _strings("startsWith", text, prefix)
    return text.startswith(prefix)


def ends_with(text: Any, suffix: Any) -> bool:
    _strings("endsWith", text, suffix)
    return text.endswith(suffix)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def compile_regex(pattern: str) -> re.Pattern[str]:
    """RE2 syntax is close to Python's for the patterns rules use; compiled once per pattern."""
    found = _PATTERNS.get(pattern)
    if found is None:
        try:
            found = re.compile(pattern)
        except re.error as err:
            raise CelError(f"error parsing regexp: {err}") from err
        if len(_PATTERNS) < 4096:
            _PATTERNS[pattern] = found
    return found


def matches(text: Any, pattern: Any) -> bool:
    _strings("matches", text, pattern)
    return compile_regex(pattern).search(text) is not None


# -- timestamps and durations ------------------------------------------------------------------


def _zone(moment: datetime, zone: Any = None) -> datetime:
    if zone is None:
        return moment
    if type(zone) is not str:
        raise NoSuchOverload("timezone")
    offset = re.fullmatch(r"([+-]?)(\d{2}):(\d{2})", zone)
    if offset is not None:
        sign = -1 if offset.group(1) == "-" else 1
        delta = timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3)))
        return (moment + sign * delta).replace(tzinfo=None)
    try:
        return moment.astimezone(ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise CelError(f"unknown time zone {zone}") from err


def _timestamp_part(name: str, part: Callable[[datetime], int]) -> Function:
    def getter(value: Any, zone: Any = None) -> int:
        if type(value) is not datetime:
            raise NoSuchOverload(name)
        return part(_zone(value, zone))

    return getter


def _time_part(name: str, timestamp: Callable[[datetime], int], duration: Callable[[timedelta], int]) -> Function:
    def getter(value: Any, zone: Any = None) -> int:
        if type(value) is timedelta and zone is None:
            return duration(value)
        if type(value) is datetime:
            return timestamp(_zone(value, zone))
        raise NoSuchOverload(name)

    return getter


def _duration_seconds(value: timedelta) -> int:
    return int(value.total_seconds())


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
    if type(value) in (bool, int, Uint, float, str, bytes, list, tuple, dict):
        return not value
    if type(value) is timedelta:
        return value == timedelta(0)
    return False


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

# -- strings extension -------------------------------------------------------------------------


def char_at(text: Any, index: Any) -> str:
    _strings("charAt", text)
    if type(index) is not int:
        raise NoSuchOverload("charAt")
    if index < 0 or index > len(text):
        raise CelError(f"index out of range: {index}")
    return text[index : index + 1]


def index_of(text: Any, part: Any, start: Any = 0) -> int:
    if type(text) in (list, tuple):
        return next((i for i, item in enumerate(text) if equals(item, part)), -1)
    _strings("indexOf", text, part)
    if start < 0 or start > len(text):
        raise CelError(f"index out of range: {start}")
    return text.find(part, start)


def last_index_of(text: Any, part: Any, end: Any = None) -> int:
    if type(text) in (list, tuple):
        return next((i for i in range(len(text) - 1, -1, -1) if equals(text[i], part)), -1)
    _strings("lastIndexOf", text, part)
    if end is None:
        return text.rfind(part)
    if end < 0 or end > len(text):
        raise CelError(f"index out of range: {end}")
    return text.rfind(part, 0, end + len(part))


def lower_ascii(text: Any) -> str:
    _strings("lowerAscii", text)
    return "".join(c.lower() if c.isascii() else c for c in text)


def upper_ascii(text: Any) -> str:
    _strings("upperAscii", text)
    return "".join(c.upper() if c.isascii() else c for c in text)


def replace(text: Any, old: Any, new: Any, count: Any = -1) -> str:
    _strings("replace", text, old, new)
    return text.replace(old, new, count if count >= 0 else -1)


def split(text: Any, separator: Any, limit: Any = -1) -> list[str]:
    _strings("split", text, separator)
    if limit == 0:
        return []
    if separator == "":
        chars = list(text)
        return chars if limit < 0 or limit >= len(chars) else [*chars[: limit - 1], "".join(chars[limit - 1 :])]
    return text.split(separator, limit - 1 if limit > 0 else -1)


def substring(text: Any, start: Any, end: Any = None) -> str:
    _strings("substring", text)
    if type(start) is not int or (end is not None and type(end) is not int):
        raise NoSuchOverload("substring")
    stop = len(text) if end is None else end
    if start < 0 or start > len(text):
        raise CelError(f"index out of range: {start}")
    if stop < 0 or stop > len(text):
        raise CelError(f"index out of range: {stop}")
    if start > stop:
        raise CelError(f"invalid substring range. start: {start}, end: {stop}")
    return text[start:stop]


_WHITESPACE: Final = (
    " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def trim(text: Any) -> str:
    _strings("trim", text)
    return text.strip(_WHITESPACE)


def join(items: Any, separator: Any = "") -> str:
    if type(items) not in (list, tuple) or any(type(i) is not str for i in items):
        raise NoSuchOverload("join")
    return separator.join(items)


def reverse(value: Any) -> Any:
    if type(value) is str:
        return value[::-1]
    if type(value) in (list, tuple):
        return list(value[::-1])
    raise NoSuchOverload("reverse")


def quote(text: Any) -> str:
    _strings("strings.quote", text)
    escapes = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
    escapes.update({"\\": "\\\\", '"': '\\"'})
    return '"' + "".join(escapes.get(c, c) for c in text) + '"'


# -- math extension ----------------------------------------------------------------------------


def _numbers(function: str, args: tuple[Any, ...]) -> list[Any]:
    values = list(args[0]) if len(args) == 1 and type(args[0]) in (list, tuple) else list(args)
    if not values:
        raise CelError(f"{function}(list) argument must not be empty")
    if any(type(v) not in NUMBERS for v in values):
        raise NoSuchOverload(function)
    return values


def greatest(*args: Any) -> Any:
    values = _numbers("math.@max", args)
    best = values[0]
    for value in values[1:]:
        if compare(value, best) > 0:
            best = value
    return best


def least(*args: Any) -> Any:
    values = _numbers("math.@min", args)
    best = values[0]
    for value in values[1:]:
        if compare(value, best) < 0:
            best = value
    return best


def _double_fn(name: str, fn: Callable[[float], Any]) -> Function:
    def apply(value: Any) -> Any:
        if type(value) is not float:
            raise NoSuchOverload(name)
        return fn(value)

    return apply


def _abs(value: Any) -> Any:
    if type(value) is int:
        return check_int(abs(value))
    if type(value) is Uint:
        return value
    if type(value) is float:
        return abs(value)
    raise NoSuchOverload("math.abs")


def _sign(value: Any) -> Any:
    if type(value) in (int, Uint):
        return type(value)((value > 0) - (value < 0))
    if type(value) is float:
        return value if math.isnan(value) or value == 0 else math.copysign(1.0, value)
    raise NoSuchOverload("math.sign")


def _round(value: float) -> float:
    if math.isnan(value) or math.isinf(value):
        return value
    return math.copysign(math.floor(abs(value) + 0.5), value)


def _trunc(value: float) -> float:
    return value if math.isnan(value) or math.isinf(value) else float(math.trunc(value))


def _bits(name: str, fn: Callable[[int, int], int]) -> Function:
    def apply(a: Any, b: Any) -> Any:
        if type(a) is type(b) and type(a) in (int, Uint):
            result = fn(a, b)
            return Uint(result & ((1 << 64) - 1)) if type(a) is Uint else _wrap_int(result)
        raise NoSuchOverload(name)

    return apply


def _wrap_int(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _bit_not(value: Any) -> Any:
    if type(value) is int:
        return ~value
    if type(value) is Uint:
        return Uint(~value & ((1 << 64) - 1))
    raise NoSuchOverload("math.bitNot")


def _shift(name: str, left: bool) -> Function:
    def apply(value: Any, bits: Any) -> Any:
        if type(value) not in (int, Uint) or type(bits) is not int:
            raise NoSuchOverload(name)
        if bits < 0:
            raise CelError(f"math.{name}() negative offset: {bits}")
        if bits >= 64:
            return type(value)(0)
        if left:
            return _wrap_int(value << bits) if type(value) is int else Uint((value << bits) & ((1 << 64) - 1))
        if type(value) is int:
            return _wrap_int((value & ((1 << 64) - 1)) >> bits)
        return Uint(value >> bits)

    return apply


# -- encoders and sets -------------------------------------------------------------------------


def base64_encode(value: Any) -> str:
    if type(value) is not bytes:
        raise NoSuchOverload("base64.encode")
    return base64.b64encode(value).decode()


def base64_decode(value: Any) -> bytes:
    if type(value) is not str:
        raise NoSuchOverload("base64.decode")
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except binascii.Error as err:
        raise CelError(f"illegal base64 data: {err}") from err


def _lists(name: str, *values: Any) -> None:
    if any(type(v) not in (list, tuple) for v in values):
        raise NoSuchOverload(name)


def sets_contains(items: Any, other: Any) -> bool:
    _lists("sets.contains", items, other)
    return all(contained_in(x, items) for x in other)


def sets_equivalent(items: Any, other: Any) -> bool:
    return sets_contains(items, other) and sets_contains(other, items)


def sets_intersects(items: Any, other: Any) -> bool:
    _lists("sets.intersects", items, other)
    return any(contained_in(x, items) for x in other)


# -- lists extension ---------------------------------------------------------------------------


def lists_range(count: Any) -> list[int]:
    if type(count) is not int:
        raise NoSuchOverload("lists.range")
    return list(range(count))


def lists_slice(items: Any, start: Any, end: Any) -> list[Any]:
    _lists("slice", items)
    if start < 0 or end < 0:
        raise CelError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CelError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if end > len(items):
        raise CelError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return list(items[start:end])


def flatten(items: Any, depth: Any = 1) -> list[Any]:
    _lists("flatten", items)
    if depth < 0:
        raise CelError("level must be non-negative")
    out: list[Any] = []
    for item in items:
        if type(item) in (list, tuple) and depth > 0:
            out.extend(flatten(item, depth - 1))
        else:
            out.append(item)
    return out


def distinct(items: Any) -> list[Any]:
    _lists("distinct", items)
    out: list[Any] = []
    for item in items:
        if not any(equals(item, seen) for seen in out):
            out.append(item)
    return out


def sort(items: Any) -> list[Any]:
    _lists("sort", items)
    import functools

    return sorted(items, key=functools.cmp_to_key(compare))


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
    "getHours": _time_part("getHours", lambda t: t.hour, lambda d: _duration_seconds(d) // 3600),
    "getMinutes": _time_part("getMinutes", lambda t: t.minute, lambda d: _duration_seconds(d) // 60),
    "getSeconds": _time_part("getSeconds", lambda t: t.second, _duration_seconds),
    "getMilliseconds": _time_part(
        "getMilliseconds", lambda t: t.microsecond // 1000, lambda d: d.microseconds // 1000 + 0
    ),
    "optional.of": optional_of,
    "optional.none": optional_none,
    "optional.ofNonZeroValue": optional_of_non_zero,
    "hasValue": has_value,
    "value": optional_value,
    "orValue": or_value,
    "charAt": char_at,
    "indexOf": index_of,
    "lastIndexOf": last_index_of,
    "lowerAscii": lower_ascii,
    "upperAscii": upper_ascii,
    "replace": replace,
    "split": split,
    "substring": substring,
    "trim": trim,
    "join": join,
    "reverse": reverse,
    "strings.quote": quote,
    "format": formatting.format_string,
    "math.greatest": greatest,
    "math.least": least,
    "math.ceil": _double_fn("math.ceil", lambda v: v if math.isinf(v) or math.isnan(v) else float(math.ceil(v))),
    "math.floor": _double_fn("math.floor", lambda v: v if math.isinf(v) or math.isnan(v) else float(math.floor(v))),
    "math.round": _double_fn("math.round", _round),
    "math.trunc": _double_fn("math.trunc", _trunc),
    "math.isInf": _double_fn("math.isInf", math.isinf),
    "math.isNaN": _double_fn("math.isNaN", math.isnan),
    "math.isFinite": _double_fn("math.isFinite", math.isfinite),
    "math.abs": _abs,
    "math.sign": _sign,
    "math.bitAnd": _bits("math.bitAnd", lambda a, b: a & b),
    "math.bitOr": _bits("math.bitOr", lambda a, b: a | b),
    "math.bitXor": _bits("math.bitXor", lambda a, b: a ^ b),
    "math.bitNot": _bit_not,
    "math.bitShiftLeft": _shift("bitShiftLeft", left=True),
    "math.bitShiftRight": _shift("bitShiftRight", left=False),
    "base64.encode": base64_encode,
    "base64.decode": base64_decode,
    "sets.contains": sets_contains,
    "sets.equivalent": sets_equivalent,
    "sets.intersects": sets_intersects,
    "lists.range": lists_range,
    "slice": lists_slice,
    "flatten": flatten,
    "distinct": distinct,
    "sort": sort,
}
