"""The strings extension (cel-go `ext.Strings`, the version Kubernetes enables): `charAt`,
`indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`, `split`, `substring`, `trim`,
`join`, `reverse`, `strings.quote` and `format`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel import formatting
from svc.machinery.cel.operators import equals
from svc.machinery.cel.values import LISTS, CelError, NoSuchOverload


def require_strings(function: str, *values: Any) -> None:
    if any(type(v) is not str for v in values):
        raise NoSuchOverload(function)


def char_at(text: Any, index: Any) -> str:
    require_strings("charAt", text)
    if type(index) is not int:
        raise NoSuchOverload("charAt")
    if index < 0 or index > len(text):
        raise CelError(f"index out of range: {index}")
    return text[index : index + 1]


def index_of(text: Any, part: Any, start: Any = 0) -> int:
    if type(text) in LISTS:
        return next((i for i, item in enumerate(text) if equals(item, part)), -1)
    require_strings("indexOf", text, part)
    if start < 0 or start > len(text):
        raise CelError(f"index out of range: {start}")
    return text.find(part, start)


def last_index_of(text: Any, part: Any, end: Any = None) -> int:
    if type(text) in LISTS:
        return next((i for i in range(len(text) - 1, -1, -1) if equals(text[i], part)), -1)
    require_strings("lastIndexOf", text, part)
    if end is None:
        return text.rfind(part)
    if end < 0 or end > len(text):
        raise CelError(f"index out of range: {end}")
    return text.rfind(part, 0, end + len(part))


def lower_ascii(text: Any) -> str:
    require_strings("lowerAscii", text)
    return "".join(c.lower() if c.isascii() else c for c in text)


def upper_ascii(text: Any) -> str:
    require_strings("upperAscii", text)
    return "".join(c.upper() if c.isascii() else c for c in text)


def replace(text: Any, old: Any, new: Any, count: Any = -1) -> str:
    require_strings("replace", text, old, new)
    return text.replace(old, new, count if count >= 0 else -1)


def split(text: Any, separator: Any, limit: Any = -1) -> list[str]:
    require_strings("split", text, separator)
    if limit == 0:
        return []
    if separator == "":
        chars = list(text)
        return chars if limit < 0 or limit >= len(chars) else [*chars[: limit - 1], "".join(chars[limit - 1 :])]
    return text.split(separator, limit - 1 if limit > 0 else -1)


def substring(text: Any, start: Any, end: Any = None) -> str:
    require_strings("substring", text)
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
    require_strings("trim", text)
    return text.strip(_WHITESPACE)


def join(items: Any, separator: Any = "") -> str:
    if type(items) not in LISTS or any(type(i) is not str for i in items):
        raise NoSuchOverload("join")
    return separator.join(items)


def reverse(value: Any) -> Any:
    if type(value) is str:
        return value[::-1]
    if type(value) in LISTS:
        return list(value[::-1])
    raise NoSuchOverload("reverse")


def quote(text: Any) -> str:
    require_strings("strings.quote", text)
    escapes = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
    escapes.update({"\\": "\\\\", '"': '\\"'})
    return '"' + "".join(escapes.get(c, c) for c in text) + '"'


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
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
}
