"""Remembering a controller's own EndpointSlice writes until its informer shows them.

Upstream's `endpointSliceTracker`: a sync that acts on a cache not yet showing the controller's
earlier creates, updates or deletes for the same key would create duplicates or undo its own work,
so it waits instead. Both the endpointslice and the mirroring controller use it.
"""

from __future__ import annotations

from typing import Any

from svc.client.informer import Informer

Obj = dict[str, Any]


class SliceTracker:
    def __init__(self, slices: Informer) -> None:
        self.slices = slices
        # key -> slice name -> the resourceVersion written, or None once deleted.
        self.written: dict[str, dict[str, int | None]] = {}

    def wrote(self, key: str, written: Obj) -> None:
        metadata = written.get("metadata") or {}
        version = str(metadata.get("resourceVersion", ""))
        if metadata.get("name") and version.isdigit():
            self.written.setdefault(key, {})[metadata["name"]] = int(version)

    def deleted(self, key: str, name: str) -> None:
        self.written.setdefault(key, {})[name] = None

    def stale(self, key: str, namespace: str) -> bool:
        """Whether the cache lacks one of the writes for `key`; forgets the ones it shows."""
        pending = self.written.get(key, {})
        for slice_name, version in list(pending.items()):
            cached = self.slices.get(f"{namespace}/{slice_name}")
            if version is None:
                seen = cached is None
            else:
                cached_version = str((cached or {}).get("metadata", {}).get("resourceVersion", ""))
                seen = cached_version.isdigit() and int(cached_version) >= version
            if seen:
                del pending[slice_name]
        if not pending:
            self.written.pop(key, None)
        return bool(pending)
