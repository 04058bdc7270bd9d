"""How the watch cache keeps one object: its JSON, plus the little that selection reads.

A decoded object costs six to eight times its JSON in Python memory; the cache holds every object of
every cached resource, so it keeps the JSON bytes (resourceVersion included) and decodes on demand.
A JSON list or watch event embeds the bytes as they are, so the common reads never decode at all.
Labels are kept decoded because label selectors are the one filter nearly every watch and list uses;
the resourceVersion is kept as a number, so a read from storage that finds the same version can serve
the cached form instead of decoding the stored value again.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson

Obj = dict[str, Any]
_NO_LABELS: dict[str, str] = {}


class CachedObject:
    __slots__ = ("api_version", "data", "kind", "labels", "revision")

    def __init__(self, data: bytes, labels: dict[str, str], api_version: str, kind: str, revision: int = 0) -> None:
        self.data = data
        self.labels = labels
        self.api_version = api_version
        self.kind = kind
        self.revision = revision

    @classmethod
    def of(cls, obj: Obj) -> CachedObject:
        """The cached form of a decoded object (which must carry its resourceVersion already)."""
        metadata = obj.get("metadata") or {}
        labels = metadata.get("labels") or _NO_LABELS
        # orjson's bytes keep the capacity its buffer grew to (up to twice the length, more for small
        # objects); an exact-size copy is what the cache should hold for the life of the object.
        return cls(
            memoryview(orjson.dumps(obj)).tobytes(),
            labels,
            sys.intern(str(obj.get("apiVersion", ""))),
            sys.intern(str(obj.get("kind", ""))),
            _revision(metadata.get("resourceVersion")),
        )

    def decode(self) -> Obj:
        """A private, decoded copy: callers may change it freely."""
        return orjson.loads(self.data)

    def json_as(self, api_version: str, kind: str) -> bytes | None:
        """The JSON that serves this object as `api_version`/`kind`, or None when the stored identity
        differs and the object has to be decoded and re-presented."""
        if self.api_version == api_version and self.kind == kind:
            return self.data
        return None


def _revision(version: Any) -> int:
    try:
        return int(version or 0)
    except (TypeError, ValueError):
        return 0
