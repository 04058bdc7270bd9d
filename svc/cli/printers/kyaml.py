"""KYAML, the YAML dialect kubectl 1.34+ prints for `-o kyaml` (KEP-5295, sigs.k8s.io/yaml/kyaml).

PyYAML cannot emit it (flow style with trailing commas, always-quoted string values, keys quoted only
when a YAML reader could take them for something else, Go-style escapes and line folding), so the
encoder is written here by hand from the upstream encoder's observable rules:

- a document starts with `---` and ends with a newline;
- maps are `{ ... }` and lists `[ ... ]`, one entry a line, two spaces a level, each entry followed by
  a comma; empty ones print as `{}` / `[]`;
- a list whose items are all maps or lists is "cuddled": `[{`, `}, {`, `}]`;
- string values are always double-quoted; a value with newlines is folded over several lines
  (`\\n\\` then a newline), its continuation lines indented one level deeper than its key;
- keys are bare unless empty, ambiguous for a YAML reader (null, bool, number, timestamp,
  sexagesimal, inf/nan) or made of characters other than letters, digits and `_` (`-`, `.`, `/`
  allowed inside), then quoted on one line;
- numbers, booleans and null print as JSON prints them (Go's float form).

Keys keep the order of the given mapping (kubectl keeps struct field order for typed objects).
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from typing import Any

from svc.cli.printers.errors import TemplateError
from svc.machinery import gotext

__all__ = ["to_kyaml"]

_INDENT = "  "
_FOLD = "\\\n"
_SEXAGESIMAL = re.compile(r"^[+-]?[1-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$")
_GO_INT = re.compile(r"^[+-]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$")
_GO_FLOAT = re.compile(
    r"^[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
    r"|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+"
    r"|[iI][nN][fF]([iI][nN][iI][tT][yY])?|[nN][aA][nN])$"
)
_DATE = r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
_CLOCK = r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})([.,][0-9]+)?"
_TIMESTAMPS = (
    re.compile(_DATE + r"[Tt]" + _CLOCK + r"(Z|[+-][0-9]{2}:[0-9]{2})$"),
    re.compile(_DATE + " " + _CLOCK + "$"),
    re.compile(_DATE + "$"),
)
_GO_SPACES = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    chr(c) for c in range(0x2000, 0x200B)
)
_NEL_RUN = re.compile(" *\x85(?: *\x85)* *")
_UNREADABLE = re.compile("[\x7f-\x84\x86-\x9f\ufffe\uffff]")
_NAMED_ESCAPES = {
    "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
    "\x00": "\\0", "\x1b": "\\e", "\x85": "\\N", "\xa0": "\\_", "\u2028": "\\L", "\u2029": "\\P",
}  # fmt: skip


def to_kyaml(data: Any) -> str:
    """One KYAML document for a JSON-decoded value, as `kubectl -o kyaml` prints an object.

    Raises TemplateError, as kubectl fails, when a string holds a character YAML cannot read raw.
    """
    return "---\n" + _render(data, 0) + "\n"


def _as_read_back(text: str) -> str:
    """The string as upstream gets it back from YAML-reading its own JSON.

    Go's JSON leaves NEL (U+0085) and a few other characters unescaped; YAML folds a raw NEL like a
    line break (one becomes a space, n of them n-1 newlines, spaces around them dropped) and refuses
    the others.
    """
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if _UNREADABLE.search(text):
        raise TemplateError("error decoding: yaml: control characters are not allowed")
    return _NEL_RUN.sub(lambda m: " " if m.group().count("\x85") == 1 else "\n" * (m.group().count("\x85") - 1), text)


def _render(value: Any, indent: int) -> str:
    if isinstance(value, dict):
        return _mapping(value, indent)
    if isinstance(value, (list, tuple)):
        return _sequence(value, indent)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return gotext.json_float(value)
    return _string(_as_read_back(str(value)), indent + 1)


def _mapping(value: dict[Any, Any], indent: int) -> str:
    if not value:
        return "{}"
    lines = [f"{_INDENT * (indent + 1)}{_key(str(key))}: {_render(item, indent + 1)},\n" for key, item in value.items()]
    return "{\n" + "".join(lines) + _INDENT * indent + "}"


def _sequence(value: list[Any] | tuple[Any, ...], indent: int) -> str:
    if not value:
        return "[]"
    if all(isinstance(item, (dict, list, tuple)) for item in value):
        return "[" + ", ".join(_render(item, indent) for item in value) + "]"
    lines = [f"{_INDENT * (indent + 1)}{_render(item, indent + 1)},\n" for item in value]
    return "[\n" + "".join(lines) + _INDENT * indent + "]"


def _key(key: str) -> str:
    key = _as_read_back(key)
    if "\n" not in key and not _needs_quotes(key):
        return key
    return '"' + "".join(_escape(c, compact=True) for c in key) + '"'


def _string(text: str, indent: int) -> str:
    """A double-quoted value; text with newlines is folded, continuation lines at `indent`."""
    if "\n" not in text:
        return '"' + "".join(_escape(c, compact=False) for c in text) + '"'
    out = ['"', _FOLD]
    after_newline = True
    for char in text:
        if after_newline:
            out.append(_INDENT * indent + ("\\" if char in _GO_SPACES and char != "\n" else " "))
        escaped = _escape(char, compact=False)
        out.append(escaped)
        after_newline = escaped.endswith("\n")
    if not after_newline:
        out.append(_FOLD)
    out.append(_INDENT * indent + '"')
    return "".join(out)


def _escape(char: str, *, compact: bool) -> str:
    if char == "\n":
        return "\\n" if compact else "\\n" + _FOLD
    if char == "\t":
        return "\\t" if compact else "\t"
    if char in ('"', "\\"):
        return "\\" + char
    if gotext.is_print(char):
        return char
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if 0xD800 <= code <= 0xDFFF:
        code = 0xFFFD
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _needs_quotes(text: str) -> bool:
    if text == "" or _is_type_ambiguous(text):
        return True
    last = len(text) - 1
    for position, char in enumerate(text):
        if char == "_" or unicodedata.category(char)[0] in "LN":
            continue
        if 0 < position < last and char in "-./":
            continue
        return True
    return False


def _is_type_ambiguous(text: str) -> bool:
    """Whether a YAML reader could take the bare text for a non-string (null, bool, number, time)."""
    lowered = text.lower()
    if len(text) <= 5 and lowered in (
        "null",
        "~",
        "",
        "y",
        "yes",
        "on",
        "n",
        "no",
        "off",
        ".inf",
        "-.inf",
        "+.inf",
        ".nan",
    ):
        return True
    if text in ("1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"):
        return True
    bare = text.replace("_", "")
    if _GO_INT.match(bare) and _fits_int64(bare):
        return True
    if _GO_FLOAT.match(bare) and _fits_float64(bare):
        return True
    return bool(_SEXAGESIMAL.match(text)) or _is_timestamp(text)


def _fits_int64(text: str) -> bool:
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    base = (
        16
        if digits[:2] in ("0x", "0X")
        else 8
        if digits[:2] in ("0o", "0O")
        else 2
        if digits[:2] in ("0b", "0B")
        else 0
    )
    if base:
        value = int(digits[2:], base)
    elif len(digits) > 1 and digits.startswith("0"):
        value = int(digits, 8)
    else:
        value = int(digits)
    return -(2**63) <= sign * value < 2**63


def _fits_float64(text: str) -> bool:
    digits = text.lstrip("+-")
    if digits.lower().startswith(("inf", "nan")):
        return True
    value = float.fromhex(text) if "x" in text.lower() else float(text)
    return value not in (float("inf"), float("-inf"))


def _is_timestamp(text: str) -> bool:
    for pattern in _TIMESTAMPS:
        match = pattern.match(text)
        if match is None:
            continue
        year, month, day = (int(g) for g in match.groups()[:3])
        if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year or 2000, month)[1]):
            return False
        if len(match.groups()) > 3:
            hour, minute, second = (int(g) for g in match.groups()[3:6])
            if hour > 23 or minute > 59 or second > 59:
                return False
        return True
    return False
