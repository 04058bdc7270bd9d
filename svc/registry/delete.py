"""Deletion rules: preconditions, garbage-collection finalizers, and two-phase deletion (spec 3.1).

An object with finalizers is not removed by a delete: it gets `deletionTimestamp` and stays,
terminating, until the last finalizer is removed (by whoever owns it), and the update that removes
it completes the deletion. `propagationPolicy` adds upstream's `orphan` or `foregroundDeletion`
finalizer, which the garbage collector honours.
"""

from __future__ import annotations

from typing import Any

from svc.api.strategy import Strategy
from svc.machinery import status
from svc.registry.create import now_rfc3339
from svc.registry.options import DeleteOptions

ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"
POLICIES = ("Orphan", "Background", "Foreground")


def check_preconditions(strategy: Strategy, obj: dict[str, Any], options: DeleteOptions) -> None:
    metadata = obj["metadata"]
    name = metadata.get("name", "")
    wanted = options.preconditions
    if wanted.uid is not None and wanted.uid != metadata.get("uid"):
        why = f"Precondition failed: UID in precondition: {wanted.uid}, UID in object meta: {metadata.get('uid')}"
        raise status.conflict(strategy.resource.group_resource, name, why)
    if wanted.resource_version is not None and wanted.resource_version != metadata.get("resourceVersion"):
        why = (
            "Precondition failed: ResourceVersion in precondition: "
            f"{wanted.resource_version}, ResourceVersion in object meta: {metadata.get('resourceVersion')}"
        )
        raise status.conflict(strategy.resource.group_resource, name, why)


def _gc_finalizers(finalizers: list[str], options: DeleteOptions) -> list[str]:
    """Upstream `deletionFinalizersForGarbageCollection`: the request's policy decides orphan/foreground."""
    orphan = foreground = None
    if options.propagation_policy == "Orphan" or options.orphan_dependents is True:
        orphan, foreground = True, False
    elif options.propagation_policy == "Foreground":
        orphan, foreground = False, True
    elif options.propagation_policy == "Background" or options.orphan_dependents is False:
        orphan, foreground = False, False
    result = list(finalizers)
    for name, wanted in ((ORPHAN, orphan), (FOREGROUND, foreground)):
        if wanted is True and name not in result:
            result.append(name)
        elif wanted is False and name in result:
            result.remove(name)
    return result


def mark_for_deletion(strategy: Strategy, obj: dict[str, Any], options: DeleteOptions) -> bool:
    """Set the terminating state on `obj`; True when the object must stay (finalizers remain)."""
    metadata = obj["metadata"]
    finalizers = _gc_finalizers(metadata.get("finalizers") or [], options)
    if finalizers:
        metadata["finalizers"] = finalizers
    else:
        metadata.pop("finalizers", None)
    if not finalizers and not strategy.keeps_terminating(obj):
        return False
    if "deletionTimestamp" not in metadata:
        metadata["deletionTimestamp"] = now_rfc3339()
        metadata["deletionGracePeriodSeconds"] = 0
    return True


def finished_terminating(strategy: Strategy, new: dict[str, Any], old: dict[str, Any]) -> bool:
    """An update that leaves a terminating object without finalizers completes its deletion."""
    old_metadata = old["metadata"]
    if new["metadata"].get("finalizers") or "deletionTimestamp" not in old_metadata:
        return False
    if strategy.keeps_terminating(new):
        return False
    return old_metadata.get("deletionGracePeriodSeconds") in (None, 0)
