"""A simple scheduler: which node a pending pod goes to, or why none fits.

It is not upstream's kube-scheduler. It applies the filters that decide whether a pod can run at all
(node unschedulable, nodeSelector, required node affinity, taints against tolerations, CPU, memory and
pod-count capacity, Ready nodes only) and then prefers the least requested node, ties broken by name.
Pod affinity, topology spread, preemption and scoring plugins are not simulated. When nothing fits,
the reasons are counted into a message shaped like upstream's
(`0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from svc.api.quota_usage import pod_amount
from svc.machinery.node_affinity import node_affinity_matches, tolerates
from svc.machinery.quantity import QuantityError, parse_quantity

Obj = dict[str, Any]
SCHEDULER_NAME = "default-scheduler"
_SCHEDULED_RESOURCES = ("cpu", "memory")


def _amount(text: object) -> Decimal:
    try:
        return parse_quantity(str(text)).value if text is not None else Decimal(0)
    except QuantityError:
        return Decimal(0)


def pod_requests(pod: Obj) -> dict[str, Decimal]:
    """A pod's effective CPU and memory requests (upstream's `PodRequests`, as quota counts them)."""
    amounts = {name: pod_amount(pod, "requests", name) for name in _SCHEDULED_RESOURCES}
    return {name: amount.value if amount is not None else Decimal(0) for name, amount in amounts.items()}


@dataclass
class NodeUsage:
    """What the pods bound to a node request, kept as pods come and go."""

    requested: dict[str, Decimal] = field(default_factory=lambda: dict.fromkeys(_SCHEDULED_RESOURCES, Decimal(0)))
    pods: int = 0

    def add(self, requests: Mapping[str, Decimal], sign: int = 1) -> None:
        for name, value in requests.items():
            self.requested[name] = self.requested.get(name, Decimal(0)) + sign * value
        self.pods += sign


def _ready(node: Obj) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _unfit_reasons(pod: Obj, requests: Mapping[str, Decimal], node: Obj, usage: NodeUsage) -> list[str]:
    """Why the pod cannot go to the node, in upstream's wording; empty when it can."""
    spec = pod.get("spec") or {}
    tolerations = spec.get("tolerations") or []
    if not _ready(node):
        return ["node(s) were not ready"]
    if (node.get("spec") or {}).get("unschedulable") and not tolerates(
        tolerations, {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    ):
        return ["node(s) were unschedulable"]
    if not node_affinity_matches(pod, node):
        return ["node(s) didn't match Pod's node affinity/selector"]
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(tolerations, taint):
            return [f"node(s) had untolerated taint {{{taint.get('key', '')}: {taint.get('value', '')}}}"]
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    reasons = []
    if "pods" in allocatable and usage.pods + 1 > _amount(allocatable["pods"]):
        reasons.append("Too many pods")
    for name in _SCHEDULED_RESOURCES:
        wanted = requests.get(name, Decimal(0))
        if not wanted or name not in allocatable:
            continue
        if usage.requested.get(name, Decimal(0)) + wanted > _amount(allocatable[name]):
            reasons.append(f"Insufficient {name}")
    return reasons


def _score(node: Obj, usage: NodeUsage, requests: Mapping[str, Decimal]) -> Decimal:
    """Upstream's least-allocated idea: the mean fraction of CPU and memory requested after placing."""
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    fractions = []
    for name in _SCHEDULED_RESOURCES:
        capacity = _amount(allocatable.get(name))
        if capacity > 0:
            fractions.append((usage.requested.get(name, Decimal(0)) + requests.get(name, Decimal(0))) / capacity)
    return sum(fractions, Decimal(0)) / len(fractions) if fractions else Decimal(usage.pods)


@dataclass(frozen=True)
class Placement:
    node: str = ""
    message: str = ""
    """Why no node fits, when `node` is empty."""


def place(pod: Obj, nodes: Iterable[Obj], usage: Mapping[str, NodeUsage]) -> Placement:
    """The node to bind the pod to, or the message of a `PodScheduled=False` condition."""
    requests = pod_requests(pod)
    candidates: list[tuple[Decimal, int, str]] = []
    reasons: Counter[str] = Counter()
    count = 0
    for node in nodes:
        count += 1
        name = node["metadata"]["name"]
        node_usage = usage.get(name) or NodeUsage()
        unfit = _unfit_reasons(pod, requests, node, node_usage)
        if unfit:
            reasons.update(unfit)
        else:
            candidates.append((_score(node, node_usage, requests), node_usage.pods, name))
    if candidates:
        return Placement(node=min(candidates)[2])
    if not count:
        return Placement(message="no nodes available to schedule pods")
    detail = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items(), key=lambda item: item[0]))
    return Placement(message=f"0/{count} nodes are available: {detail}.")
