"""Pod columns: READY "1/2", STATUS ("Running", "Init:0/1", "CrashLoopBackOff", "Terminating", ...),
RESTARTS "2 (5m ago)", and the wide IP, NODE, NOMINATED NODE and READINESS GATES.

STATUS follows upstream's reading of a pod: the first init container that has not finished decides
while the pod initializes; afterwards the first app container with a waiting or terminated reason does,
and "Completed" turns back into "Running" (or "NotReady", or the failing container's reason) while some
container still runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from typing import Any

from svc.api.columns import descriptions, timing
from svc.api.columns.common import age_column, field, items, mapping, name_column, number, text
from svc.wire.views import Column, Obj

_NONE = "<none>"
_TERMINAL_PHASES = ("Succeeded", "Failed")
_NODE_LOST = "NodeLost"


@dataclass(frozen=True)
class PodSummary:
    ready: int
    total: int
    reason: str
    restarts: int
    last_restart: datetime | None


@dataclass
class _Restarts:
    count: int = 0
    last: datetime | None = None

    def add(self, container: Any) -> None:
        self.count += number(container, "restartCount")
        finished = timing.parse_time(field(container, "lastState", "terminated", "finishedAt"))
        if finished is not None and (self.last is None or self.last < finished):
            self.last = finished


@dataclass
class _Initialization:
    """What the init containers say: the reason while one is unfinished (None once all are done)."""

    reason: str | None = None
    ready_sidecars: int = 0
    restarts: _Restarts = dataclass_field(default_factory=_Restarts)
    sidecar_restarts: _Restarts = dataclass_field(default_factory=_Restarts)


def _initialization(spec: Obj, status: Obj, sidecars: set[str]) -> _Initialization:
    """Walks the init containers in order up to the first that has not finished (a started sidecar has)."""
    found = _Initialization()
    for index, container in enumerate(items(status, "initContainerStatuses")):
        found.restarts.add(container)
        is_sidecar = text(container, "name") in sidecars
        if is_sidecar:
            found.sidecar_restarts.add(container)
        terminated = field(container, "state", "terminated")
        waiting_reason = text(container, "state", "waiting", "reason")
        if isinstance(terminated, dict) and number(terminated, "exitCode") == 0:
            continue
        if is_sidecar and field(container, "started") is True:
            found.ready_sidecars += field(container, "ready") is True
            continue
        if isinstance(terminated, dict):
            found.reason = "Init:" + _termination_reason(terminated)
        elif waiting_reason not in ("", "PodInitializing"):
            found.reason = "Init:" + waiting_reason
        else:
            found.reason = f"Init:{index}/{len(items(spec, 'initContainers'))}"
        break
    return found


def summarize(pod: Obj) -> PodSummary:
    spec, status = mapping(pod, "spec"), mapping(pod, "status")
    phase = text(status, "phase")
    reason = text(status, "reason") or phase
    if any(
        text(condition, "type") == "PodScheduled" and text(condition, "reason") == "SchedulingGated"
        for condition in items(status, "conditions")
    ):
        reason = "SchedulingGated"

    sidecars = {text(container, "name") for container in items(spec, "initContainers") if _is_restartable(container)}
    total = len(items(spec, "containers")) + sum(map(_is_restartable, items(spec, "initContainers")))
    init = _initialization(spec, status, sidecars)
    ready, restarts = init.ready_sidecars, init.restarts
    if init.reason is not None:
        reason = init.reason
    if init.reason is None or _first_condition_true(status, "Initialized"):
        restarts = init.sidecar_restarts
        has_running = False
        error_reason = ""
        for container in reversed(items(status, "containerStatuses")):
            restarts.add(container)
            terminated = field(container, "state", "terminated")
            if text(container, "state", "waiting", "reason"):
                reason = text(container, "state", "waiting", "reason")
            elif isinstance(terminated, dict):
                reason = _termination_reason(terminated)
                if number(terminated, "exitCode") != 0:
                    error_reason = reason
            elif field(container, "ready") is True and isinstance(field(container, "state", "running"), dict):
                has_running = True
                ready += 1
        if reason == "Completed":
            if has_running and _any_condition_true(status, "Ready"):
                reason = "Running"
            elif error_reason:
                reason = error_reason
            elif has_running:
                reason = "NotReady"

    if field(pod, "metadata", "deletionTimestamp") is not None:
        if text(status, "reason") == _NODE_LOST:
            reason = "Unknown"
        elif phase not in _TERMINAL_PHASES:
            reason = "Terminating"
    return PodSummary(ready, total, reason, restarts.count, restarts.last)


def row_conditions(pod: Obj) -> list[Obj]:
    """The `Completed` condition upstream attaches to the table row of a pod that has finished."""
    phase = text(pod, "status", "phase")
    if phase == "Succeeded":
        message = "The pod has completed successfully."
    elif phase == "Failed":
        message = "The pod failed."
    else:
        return []
    return [{"type": "Completed", "status": "True", "reason": phase, "message": message}]


def _is_restartable(container: Any) -> bool:
    return text(container, "restartPolicy") == "Always"


def _termination_reason(terminated: Obj) -> str:
    if text(terminated, "reason"):
        return text(terminated, "reason")
    if number(terminated, "signal") != 0:
        return f"Signal:{number(terminated, 'signal')}"
    return f"ExitCode:{number(terminated, 'exitCode')}"


def _first_condition_true(status: Obj, kind: str) -> bool:
    for condition in items(status, "conditions"):
        if text(condition, "type") == kind:
            return text(condition, "status") == "True"
    return False


def _any_condition_true(status: Obj, kind: str) -> bool:
    return any(
        text(condition, "type") == kind and text(condition, "status") == "True"
        for condition in items(status, "conditions")
    )


def _ready(summary: PodSummary) -> str:
    return f"{summary.ready}/{summary.total}"


def _status(summary: PodSummary) -> str:
    return summary.reason


def _restarts(summary: PodSummary) -> str:
    if summary.restarts != 0 and summary.last_restart is not None:
        return f"{summary.restarts} ({timing.elapsed(summary.last_restart)} ago)"
    return str(summary.restarts)


def _ip(pod: Obj) -> str:
    status = mapping(pod, "status")
    pod_ips = items(status, "podIPs")
    return text(status, "podIP") or (text(pod_ips[0], "ip") if pod_ips else "") or _NONE


def _readiness_gates(pod: Obj) -> str:
    gates = items(pod, "spec", "readinessGates")
    if not gates:
        return _NONE
    conditions = items(pod, "status", "conditions")
    passed = 0
    for gate in gates:
        wanted = text(gate, "conditionType")
        match = next((condition for condition in conditions if text(condition, "type") == wanted), None)
        passed += match is not None and text(match, "status") == "True"
    return f"{passed}/{len(gates)}"


COLUMNS = (
    name_column(),
    Column(
        "Ready",
        "string",
        _ready,
        description="The aggregate readiness state of this pod for accepting traffic.",
        via=summarize,
    ),
    Column(
        "Status", "string", _status, description="The aggregate status of the containers in this pod.", via=summarize
    ),
    Column(
        "Restarts",
        "string",
        _restarts,
        description="The number of times the containers in this pod have been restarted and when the last "
        "container in this pod has restarted.",
        via=summarize,
    ),
    age_column(),
    Column("IP", "string", _ip, description=descriptions.POD_IP, priority=1),
    Column(
        "Node",
        "string",
        lambda pod: text(pod, "spec", "nodeName") or _NONE,
        description=descriptions.POD_NODE_NAME,
        priority=1,
    ),
    Column(
        "Nominated Node",
        "string",
        lambda pod: text(pod, "status", "nominatedNodeName") or _NONE,
        description=descriptions.POD_NOMINATED_NODE_NAME,
        priority=1,
    ),
    Column("Readiness Gates", "string", _readiness_gates, description=descriptions.POD_READINESS_GATES, priority=1),
)
