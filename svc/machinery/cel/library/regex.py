"""The `regex` library: `<string>.find(re)` and `<string>.findAll(re[, limit])`.

Patterns run on RE2 with Go's meaning (see `re2`), compiled once and cached by `stdlib`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.re2 import Regexp
from svc.machinery.cel.stdlib import compile_regex
from svc.machinery.cel.values import CelError, NoSuchOverload


def _pattern(text: Any, pattern: Any, name: str) -> Regexp:
    if type(text) is not str or type(pattern) is not str:
        raise NoSuchOverload(name)
    try:
        return compile_regex(pattern)
    except CelError as err:
        raise CelError(f"Illegal regex: {err}") from err


def find(text: Any, pattern: Any) -> str:
    return _pattern(text, pattern, "find").find(text)


def find_all(text: Any, pattern: Any, limit: Any = -1) -> list[str]:
    compiled = _pattern(text, pattern, "findAll")
    if type(limit) is not int:
        raise NoSuchOverload("findAll")
    if limit == 0:
        return []
    return compiled.find_all(text, limit)


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {"find": find, "findAll": find_all}
