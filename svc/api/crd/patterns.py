"""Schema `pattern`s are Go RE2 expressions; Python's `re` reads most of them the same way.

The differences CRD authors meet are translated: `$` and `\\z` (end of text), POSIX classes inside brackets
(`[[:alpha:]]`) and the common Unicode classes outside brackets (`\\p{L}`, `\\pN`). A pattern that
still does not compile but uses RE2's Unicode classes, or uses a negated POSIX class, is valid RE2
Python cannot express: it is accepted and left unchecked rather than refusing a CRD upstream accepts.
"""

from __future__ import annotations

import functools
import re
from typing import Final

_POSIX: Final = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7F",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_UNICODE: Final = {
    "L": "[^\\W\\d_]",
    "Lu": "[A-Z\\u00C0-\\u00DE]",
    "Ll": "[a-z\\u00DF-\\u00FF]",
    "N": "\\d",
    "Nd": "\\d",
}
_ESCAPES: Final = re.compile(r"\\(?:z|[pP](?:\{(\w+)\}|(\w)))|\[:(\^?)(\w+):\]|\\.")
_NEGATED_POSIX: Final = re.compile(r"\[:\^\w+:\]")
_UNSUPPORTED: Final = re.compile(r"\\[pP]")
_MULTILINE: Final = re.compile(r"\(\?[a-zA-Z]*m")


def _translate(pattern: str) -> str:
    def replace(match: re.Match[str]) -> str:
        text = match.group(0)
        if text == "\\z":
            return "\\Z"
        name = match.group(1) or match.group(2)
        if name is not None:
            found = _UNICODE.get(name)
            if found is None:
                return text
            if text[1] == "P":
                return f"(?:(?!{found}).)" if found.startswith("[") else "\\D"
            return found
        posix = match.group(4)
        if posix is not None:
            return _POSIX.get(posix, text) if not match.group(3) else text
        return text

    return _end_of_text(_ESCAPES.sub(replace, pattern))


def _end_of_text(pattern: str) -> str:
    """Go's `$` (without the m flag) matches only at the very end, Python's also before a final
    newline: outside character classes it becomes `\\Z`."""
    if _MULTILINE.search(pattern):
        return pattern
    out: list[str] = []
    index, class_start = 0, -1
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            out.append(pattern[index : index + 2])
            index += 2
            continue
        if class_start >= 0:
            if pattern.startswith("[:", index):
                end = pattern.find(":]", index + 2)
                if end >= 0:
                    out.append(pattern[index : end + 2])
                    index = end + 2
                    continue
            if char == "]" and index > class_start:
                class_start = -1
        elif char == "[":
            class_start = index + 1 + (pattern.startswith("^", index + 1))
        elif char == "$":
            char = "\\Z"
        out.append(char)
        index += 1
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def go_pattern(pattern: str) -> re.Pattern[str] | None:
    """The Python form of an RE2 pattern, or None when it is valid RE2 Python cannot check;
    raises `re.error` for a pattern neither accepts."""
    if _NEGATED_POSIX.search(pattern):
        return None
    try:
        return re.compile(_translate(pattern))
    except re.error:
        if _UNSUPPORTED.search(pattern):
            return None
        raise
