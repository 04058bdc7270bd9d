"""The `jsonpatch` library of MutatingAdmissionPolicy: `jsonpatch.escapeKey(k)` escapes a map key
for a JSON Pointer path (`~` as `~0`, `/` as `~1`, RFC 6901)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from svc.machinery.cel.values import NoSuchOverload


def escape_key(key: Any) -> str:
    if type(key) is not str:
        raise NoSuchOverload("jsonpatch.escapeKey")
    return key.replace("~", "~0").replace("/", "~1")


FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {"jsonpatch.escapeKey": escape_key}
