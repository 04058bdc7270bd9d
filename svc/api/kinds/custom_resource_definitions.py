"""CustomResourceDefinitions: stored versions, and deletion that waits for the custom resources.

As upstream's CRD strategy, every create and update records the storage version in
`status.storedVersions` (the versions objects may still be stored in). A delete does not remove the
CRD: it becomes Terminating with the cleanup finalizer, which the apiextensions controller removes
once every custom resource of the CRD is gone (`svc/apiserver/apiextensions/`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.strategy import Strategy
from svc.registry.create import now_rfc3339

Obj = dict[str, Any]

PENDING_REASON = "InstanceDeletionPending"
PENDING_MESSAGE = "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon"


def cleanup_finalizer(strategy: Strategy) -> str:
    return f"customresourcecleanup.{strategy.profile.group('apiextensions.k8s.io')}"


def set_condition(obj: Obj, condition: Obj) -> None:
    """Upstream's `SetCRDCondition`: replace the condition of that type, keeping its transition time
    when the status does not change."""
    conditions = obj.setdefault("status", {}).setdefault("conditions", None) or []
    for index, existing in enumerate(conditions):
        if existing.get("type") == condition["type"]:
            moved = existing.get("status") != condition["status"]
            time = now_rfc3339() if moved or not existing.get("lastTransitionTime") else existing["lastTransitionTime"]
            conditions[index] = {**condition, "lastTransitionTime": time}
            break
    else:
        conditions.append({**condition, "lastTransitionTime": now_rfc3339()})
    obj["status"]["conditions"] = conditions


def _record_storage_version(obj: Obj) -> None:
    versions = (obj.get("spec") or {}).get("versions") or []
    storage = next((v.get("name") for v in versions if isinstance(v, dict) and v.get("storage")), None)
    if not storage:
        return
    state = obj.setdefault("status", {})
    stored = state.get("storedVersions") or []
    if storage not in stored:
        state["storedVersions"] = [*stored, storage]


def strategy(base: Strategy) -> Strategy:
    finalizer = cleanup_finalizer(base)

    def prepare_for_create(obj: Obj) -> None:
        obj["status"] = {}
        _record_storage_version(obj)

    def prepare_for_update(new: Obj, old: Obj) -> None:
        _record_storage_version(new)

    def keeps_terminating(obj: Obj) -> bool:
        """The first delete marks the CRD and adds the finalizer; the finalizer's removal ends it."""
        metadata = obj["metadata"]
        if "deletionTimestamp" in metadata:
            return False
        finalizers = metadata.get("finalizers") or []
        if finalizer not in finalizers:
            metadata["finalizers"] = [*finalizers, finalizer]
        condition = {"type": "Terminating", "status": "True", "reason": PENDING_REASON, "message": PENDING_MESSAGE}
        set_condition(obj, condition)
        return True

    return dataclasses.replace(
        base,
        prepare_for_create=prepare_for_create,
        prepare_for_update=prepare_for_update,
        keeps_terminating=keeps_terminating,
    )
