"""Deletion rules: preconditions, garbage-collection finalizers, graceful and two-phase deletion (spec 3.1).

An object with finalizers is not removed by a delete: it gets `deletionTimestamp` and stays,
terminating, until the last finalizer is removed (by whoever owns it), and the update that removes
it completes the deletion. `propagationPolicy` adds upstream's `orphan` or `foregroundDeletion`
finalizer, which the garbage collector honours. A kind deleted gracefully (pods) also stays for its
grace period, until whoever runs it deletes it again with a shorter one (the kubelet, with 0).
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from svc.api.strategy import Strategy
from svc.machinery import status, wallclock
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


class Outcome(enum.Enum):
    """What a delete does to the object it read (upstream `BeforeDelete`, then
    `updateForGracefulDeletionAndFinalizers`)."""

    REMOVE = "remove"  # gone at once
    MARK = "mark"  # written terminating: finalizers remain, or a grace period runs
    MARK_THEN_REMOVE = "mark-then-remove"  # written terminating with no grace left, then removed
    PENDING = "pending"  # a graceful deletion already runs: answered with the object as it is


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(int(seconds), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _graceful(strategy: Strategy, obj: dict[str, Any], options: DeleteOptions, now: float) -> Outcome | None:
    """Upstream's graceful part of `BeforeDelete`; None when the delete is not graceful (the strategy
    has no grace rule, or a terminating object's grace is already 0)."""
    if strategy.deletion_grace is None:
        return None
    metadata = obj["metadata"]
    requested = options.grace_period_seconds
    if requested is not None and requested < 0:
        requested = 1
    current = metadata.get("deletionGracePeriodSeconds")
    if isinstance(current, int) and current < 0:
        current = metadata["deletionGracePeriodSeconds"] = 1
    if metadata.get("deletionTimestamp"):
        if not current:
            return None
        if requested is None or requested >= current:
            return Outcome.PENDING
        # only a shorter grace period may be asked for: the deadline moves earlier by the difference
        metadata["deletionTimestamp"] = _stamp(_seconds(metadata["deletionTimestamp"]) - current + requested)
        metadata["deletionGracePeriodSeconds"] = requested
        return Outcome.MARK
    grace = strategy.deletion_grace(obj, requested)
    metadata["deletionTimestamp"] = _stamp(now + grace)
    metadata["deletionGracePeriodSeconds"] = grace
    if (metadata.get("generation") or 0) > 0:
        metadata["generation"] += 1
    return Outcome.MARK


def _mark_as_deleting(metadata: dict[str, Any], now: float) -> None:
    """Upstream `markAsDeleting`: terminating from now (or earlier), with no grace period left."""
    if "deletionTimestamp" not in metadata and (metadata.get("generation") or 0) > 0:
        metadata["generation"] += 1
    stamp = metadata.get("deletionTimestamp")
    if stamp is None or _seconds(stamp) > now:
        metadata["deletionTimestamp"] = _stamp(now)
    metadata["deletionGracePeriodSeconds"] = 0


def mark_for_deletion(
    strategy: Strategy, obj: dict[str, Any], options: DeleteOptions, *, now: float | None = None
) -> Outcome:
    """Set the terminating state on `obj` and say whether it is removed, written, or left as it is.

    A graceful deletion under way is left alone (its finalizers are not changed either, as upstream);
    an object stays while finalizers remain or its grace period is above 0."""
    now = wallclock.now() if now is None else now
    metadata = obj["metadata"]
    graceful = _graceful(strategy, obj, options, now)
    if graceful is Outcome.PENDING:
        return graceful
    finalizers = _gc_finalizers(metadata.get("finalizers") or [], options)
    if finalizers:
        metadata["finalizers"] = finalizers
    else:
        metadata.pop("finalizers", None)
    if graceful is Outcome.MARK:
        # a grace period of 0 is still written before the removal, as upstream's update for graceful
        # deletion is: watchers see the terminating object, then its deletion
        return Outcome.MARK if finalizers or metadata["deletionGracePeriodSeconds"] > 0 else Outcome.MARK_THEN_REMOVE
    if not finalizers and not strategy.keeps_terminating(obj):
        return Outcome.REMOVE
    _mark_as_deleting(metadata, now)
    return Outcome.MARK


def finished_terminating(strategy: Strategy, new: dict[str, Any], old: dict[str, Any]) -> bool:
    """An update that leaves a terminating object without finalizers completes its deletion."""
    old_metadata = old["metadata"]
    if new["metadata"].get("finalizers") or "deletionTimestamp" not in old_metadata:
        return False
    if strategy.keeps_terminating(new):
        return False
    return old_metadata.get("deletionGracePeriodSeconds") in (None, 0)
