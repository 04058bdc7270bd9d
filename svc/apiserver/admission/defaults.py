"""The default class of a kind (StorageClass, IngressClass): marked by an annotation; with several,
the newest wins, then the first by name, as upstream picks."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def default_class(classes: list[Obj], annotations: tuple[str, ...]) -> Obj | None:
    marked = [
        item
        for item in classes
        if any(((item.get("metadata") or {}).get("annotations") or {}).get(key) == "true" for key in annotations)
    ]
    if not marked:
        return None
    marked.sort(key=lambda item: item["metadata"]["name"])
    return max(marked, key=lambda item: item["metadata"].get("creationTimestamp") or "")
