"""The `regex` library: `<string>.find(re)` and `<string>.findAll(re[, limit])`.

Python's `re` stands in for Go's RE2; patterns are compiled once and cached by `stdlib`. Go's
`FindAllString` skips an empty match right after a previous match, as `re.finditer` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.stdlib import compile_regex
from svc.machinery.cel.values import CelError, NoSuchOverload


def _pattern(text: Any, pattern: Any, name: str) -> Any:
    if type(text) is not str or type(pattern) is not str:
        raise NoSuchOverload(name)
    try:
        return compile_regex(pattern)
    except CelError as err:
        raise CelError(f"Illegal regex: {err}") from err


def find(text: Any, pattern: Any) -> str:
    match = _pattern(text, pattern, "find").search(text)
    return match.group() if match else ""


def find_all(text: Any, pattern: Any, limit: Any = -1) -> list[str]:
    compiled = _pattern(text, pattern, "findAll")
    if type(limit) is not int:
        raise NoSuchOverload("findAll")
    if limit == 0:
        return []
    out: list[str] = []
    previous_end = -1
    for match in compiled.finditer(text):
        if match.start() == match.end() == previous_end:
            continue
        out.append(match.group())
        previous_end = match.end()
        if 0 < limit <= len(out):
            break
    return out


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {"find": find, "findAll": find_all}
