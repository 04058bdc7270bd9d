"""Parts of objects found valid before, so their checks need not run again on the next write.

Workloads repeat themselves: every pod of a Deployment carries the same volumes and container
resources, and a controller writes them again and again. A check that reads nothing but the part it
is given (no feature gates, no stored object) finds no error in a part it found none in before, whatever
the path; such a check remembers those parts here, by their exact JSON form, and answers [] at once.
Only valid parts are kept (errors name their paths, so they are always computed), and the memory is
bounded: a full set is emptied.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import orjson

from svc.machinery.field_errors import FieldError

_LIMIT: Final = 4096


class KnownValid:
    """Exact JSON forms of the parts one check found valid."""

    def __init__(self, limit: int = _LIMIT) -> None:
        self._seen: set[bytes] = set()
        self._limit = limit

    @staticmethod
    def key(part: Any) -> bytes | None:
        """The part's exact form (types included: `1` and `"1"` differ), or None when it has none."""
        try:
            return orjson.dumps(part)
        except (orjson.JSONEncodeError, TypeError):
            return None

    def __contains__(self, key: bytes | None) -> bool:
        return key is not None and key in self._seen

    def remember(self, key: bytes | None) -> None:
        if key is None:
            return
        if len(self._seen) >= self._limit:
            self._seen.clear()
        self._seen.add(key)

    def errors(self, part: Any, check: Callable[[], list[FieldError]]) -> list[FieldError]:
        """`check()`'s errors about `part`, or none at once when the part was found valid before; a
        part found valid now is remembered."""
        key = self.key(part)
        if key in self:
            return []
        found = check()
        if not found:
            self.remember(key)
        return found
