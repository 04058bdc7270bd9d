"""Storage-object-in-use protection: the finalizer rules the PV and PVC protection controllers share.

Upstream `pkg/util/protectionutil`: an object being deleted that still carries the protection finalizer
is a candidate for releasing it; an object not being deleted that lacks the finalizer gets it (the
admission plugin upstream adds it at creation; the controller covers objects that predate it, and here
every object, since the API server has no such plugin).
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def finalizers(obj: Obj) -> list[str]:
    return list((obj.get("metadata") or {}).get("finalizers") or [])


def is_deletion_candidate(obj: Obj, finalizer: str) -> bool:
    return bool(obj["metadata"].get("deletionTimestamp")) and finalizer in finalizers(obj)


def needs_finalizer(obj: Obj, finalizer: str) -> bool:
    return not obj["metadata"].get("deletionTimestamp") and finalizer not in finalizers(obj)


def with_finalizer(obj: Obj, finalizer: str) -> Obj:
    return {**obj, "metadata": {**obj["metadata"], "finalizers": [*finalizers(obj), finalizer]}}


def without_finalizer(obj: Obj, finalizer: str) -> Obj:
    kept = [name for name in finalizers(obj) if name != finalizer]
    return {**obj, "metadata": {**obj["metadata"], "finalizers": kept}}
