"""Kubernetes' CEL libraries (k8s.io/apiserver pkg/cel/library), one module each, in one table.

Libraries share function names (`isGreaterThan` on quantities and on semvers, `indexOf` on
strings and lists): `overloads()` chains such functions so the first whose types match answers,
as cel-go picks an overload by the argument types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from svc.machinery.cel.library import authz, formats, ip, jsonpatch, lists, quantity, regex, semver, urls
from svc.machinery.cel.values import NoSuchOverload

Function = Callable[..., Any]


def _chain(name: str, candidates: list[Function]) -> Function:
    def dispatch(*args: Any) -> Any:
        for candidate in candidates:
            try:
                return candidate(*args)
            except (NoSuchOverload, TypeError):
                continue
        raise NoSuchOverload(name)

    return dispatch


def overloads(*tables: Mapping[str, Function]) -> dict[str, Function]:
    """One table from several; a name defined more than once dispatches to each in turn."""
    found: dict[str, list[Function]] = {}
    for table in tables:
        for name, function in table.items():
            found.setdefault(name, []).append(function)
    return {name: fns[0] if len(fns) == 1 else _chain(name, fns) for name, fns in found.items()}


FUNCTIONS: Final[dict[str, Function]] = overloads(
    lists.FUNCTIONS,
    regex.FUNCTIONS,
    urls.FUNCTIONS,
    quantity.FUNCTIONS,
    ip.FUNCTIONS,
    semver.FUNCTIONS,
    formats.FUNCTIONS,
    authz.FUNCTIONS,
    jsonpatch.FUNCTIONS,
)
