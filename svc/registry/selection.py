"""Which objects a list or watch selects: its label, field and shard selectors, applied to decoded
objects and to the watch cache's encoded ones (which are decoded only when a field or shard
selector needs more than their labels)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.registry.options import ListOptions
from svc.storage.cached_object import CachedObject

Obj = dict[str, Any]


class Selection:
    __slots__ = ("everything", "field_labels", "fields", "labels", "needs_object", "shards")

    def __init__(self, options: ListOptions, field_labels: Callable[[Obj], dict[str, str]]) -> None:
        labels, fields = options.label_selector, options.field_selector
        self.labels = labels if labels is not None and not labels.empty else None
        self.fields = fields if fields is not None and not fields.empty else None
        self.shards = options.shard_selector
        self.field_labels = field_labels
        self.needs_object = self.fields is not None or self.shards is not None
        self.everything = self.labels is None and not self.needs_object

    def matches(self, obj: Obj) -> bool:
        if self.labels is not None and not self.labels.matches(obj["metadata"].get("labels") or {}):
            return False
        if self.fields is not None and not self.fields.matches(self.field_labels(obj)):
            return False
        return self.shards is None or self.shards.matches(obj)

    def matches_cached(self, cached: CachedObject) -> bool:
        if self.everything:
            return True
        if self.needs_object:
            return self.matches(cached.decode())
        assert self.labels is not None
        return self.labels.matches(cached.labels)
