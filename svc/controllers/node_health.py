"""The rules of node health the node-lifecycle controller applies, free of I/O.

Upstream `pkg/controller/nodelifecycle`: conditions of a node whose heartbeat is overdue become
Unknown with upstream's reasons; the condition-derived NoSchedule taints; a zone's disruption state
from its nodes' Ready conditions; and the taint rate a state allows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from svc.controllers.deployment_math import condition, rfc3339

Obj = dict[str, Any]

UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}
NOT_READY = {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}
EXCLUDE_DISRUPTION = "node.kubernetes.io/exclude-disruption"

# condition type -> status -> the NoSchedule taint key it implies.
CONDITION_TAINTS = {
    "Ready": {"False": "node.kubernetes.io/not-ready", "Unknown": "node.kubernetes.io/unreachable"},
    "MemoryPressure": {"True": "node.kubernetes.io/memory-pressure"},
    "DiskPressure": {"True": "node.kubernetes.io/disk-pressure"},
    "NetworkUnavailable": {"True": "node.kubernetes.io/network-unavailable"},
    "PIDPressure": {"True": "node.kubernetes.io/pid-pressure"},
}
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
MANAGED_NO_SCHEDULE = {key for taints in CONDITION_TAINTS.values() for key in taints.values()} | {UNSCHEDULABLE}

# The conditions a silent node's controller marks Unknown; NetworkUnavailable belongs to the network.
WATCHED_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")

FULL_DISRUPTION = "FullDisruption"
PARTIAL_DISRUPTION = "PartialDisruption"
NORMAL = "Normal"
INITIAL = "Initial"


def parse_time(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def ready_status(node: Obj) -> str | None:
    ready = condition(node.get("status") or {}, "Ready")
    return None if ready is None else ready.get("status")


def mark_unknown(node: Obj, wall: float) -> Obj:
    """The node with its watched conditions Unknown: missing ones added as never posted, the others
    moved to Unknown keeping their heartbeat."""
    status = dict(node.get("status") or {})
    conditions = [dict(c) for c in status.get("conditions") or []]
    now = rfc3339(wall)
    for kind in WATCHED_CONDITIONS:
        current = next((c for c in conditions if c.get("type") == kind), None)
        if current is None:
            conditions.append(
                {
                    "type": kind,
                    "status": "Unknown",
                    "lastHeartbeatTime": node["metadata"].get("creationTimestamp"),
                    "lastTransitionTime": now,
                    "reason": "NodeStatusNeverUpdated",
                    "message": "Kubelet never posted node status.",
                }
            )
        elif current.get("status") != "Unknown":
            current.update(
                status="Unknown",
                reason="NodeStatusUnknown",
                message="Kubelet stopped posting node status.",
                lastTransitionTime=now,
            )
    return {**node, "status": {**status, "conditions": conditions}}


def no_schedule_taints(node: Obj) -> list[Obj]:
    """The NoSchedule taints the node's conditions and `unschedulable` call for."""
    keys = []
    for item in (node.get("status") or {}).get("conditions") or []:
        key = CONDITION_TAINTS.get(item.get("type"), {}).get(item.get("status"))
        if key:
            keys.append(key)
    if (node.get("spec") or {}).get("unschedulable"):
        keys.append(UNSCHEDULABLE)
    return [{"key": key, "effect": "NoSchedule"} for key in keys]


def reconcile_no_schedule(node: Obj) -> list[Obj] | None:
    """The node's taints with the managed NoSchedule ones made to match its conditions, or None when
    they already do."""
    taints = list((node.get("spec") or {}).get("taints") or [])
    managed = [t for t in taints if t.get("effect") == "NoSchedule" and t.get("key") in MANAGED_NO_SCHEDULE]
    wanted = no_schedule_taints(node)
    present = {t["key"] for t in managed}
    if present == {t["key"] for t in wanted}:
        return None
    kept = [t for t in taints if t not in managed or t["key"] in {w["key"] for w in wanted}]
    return kept + [t for t in wanted if t["key"] not in present]


def has_taint(node: Obj, template: Obj) -> bool:
    return any(
        t.get("key") == template["key"] and t.get("effect") == template["effect"]
        for t in (node.get("spec") or {}).get("taints") or []
    )


def swap_taints(node: Obj, add: Obj | None, remove: list[Obj], wall: float) -> list[Obj] | None:
    """The node's taints with `add` (stamped with the time) present and `remove` gone, or None when
    nothing changes."""
    taints = list((node.get("spec") or {}).get("taints") or [])
    kept = [t for t in taints if not any(t.get("key") == r["key"] and t.get("effect") == r["effect"] for r in remove)]
    if add is not None and not has_taint(node, add):
        kept.append({**add, "timeAdded": rfc3339(wall)})
    return None if kept == taints else kept


def zone_of(node: Obj) -> str:
    labels = node["metadata"].get("labels") or {}
    region = labels.get("topology.kubernetes.io/region", "")
    zone = labels.get("topology.kubernetes.io/zone", "")
    return f"{region}:\x00:{zone}" if region or zone else ""


def zone_state(ready_statuses: list[str | None], unhealthy_threshold: float) -> str:
    ready = sum(1 for status in ready_statuses if status == "True")
    not_ready = len(ready_statuses) - ready
    if ready == 0 and not_ready > 0:
        return FULL_DISRUPTION
    if not_ready > 2 and not_ready / len(ready_statuses) >= unhealthy_threshold:
        return PARTIAL_DISRUPTION
    return NORMAL
