"""The forms in which a list served from the watch cache hands over its items.

The cache keeps each object as JSON bytes. A JSON response embeds them as they are; a response in
another form (Protobuf, YAML, CBOR, a Table) needs decoded objects. Decoding all of them before
encoding the first holds every decoded object at once: for 10,000 pods a few hundred megabytes of
small objects, whose allocation and release (page faults, then frees) took longer than the decoding
itself. A reader that takes each item once (the Protobuf encoder, the Table and metadata-only views)
gets them decoded one at a time instead.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from svc.machinery.collector import collector_paused
from svc.storage.cached_object import CachedObject

Obj = dict[str, Any]


class ItemForm(enum.Enum):
    DECODED = "decoded"
    """A list of decoded objects, for any caller."""
    JSON = "json"
    """`orjson.Fragment`s of the cached JSON where it serves as it is, for a compact-JSON encoder."""
    ONE_PASS = "one-pass"
    """Decoded as they are iterated, once, for a reader that takes each item once."""


class DecodedOnePass:
    """The items of a list, each decoded (and presented) when the iteration reaches it."""

    __slots__ = ("_cached", "_present")

    def __init__(self, cached: list[CachedObject], present: Callable[[Obj], Obj]) -> None:
        self._cached = cached
        self._present = present

    def __len__(self) -> int:
        return len(self._cached)

    def __iter__(self) -> Iterator[Obj]:
        present = self._present
        for cached in self._cached:
            yield present(cached.decode())


def list_items(
    cached: list[CachedObject], form: ItemForm, present: Callable[[Obj], Obj], api_version: str, kind: str
) -> list[Any] | DecodedOnePass:
    """The items in `form`; `present` shows a decoded object as the served `api_version`/`kind`."""
    if form is ItemForm.ONE_PASS:
        return DecodedOnePass(cached, present)
    with collector_paused():
        if form is ItemForm.JSON:
            return [
                orjson.Fragment(data)
                if (data := item.json_as(api_version, kind)) is not None
                else present(item.decode())
                for item in cached
            ]
        return [present(item.decode()) for item in cached]
