"""The replica count a metric asks for: upstream's `ReplicaCalculator`.

Pure functions over pods and their metrics (milli-units, as upstream computes in MilliValue):
- pods being deleted or Failed are ignored; Pending pods count as unready; pods without a sample are
  missing; for CPU, a pod is unready while it is not Ready or, within the CPU initialization period,
  while its sample may predate its last readiness change, and after that period only if it has never
  been Ready past the initial readiness delay;
- the usage ratio (utilization / target, or average value / target) scales the ready pods, unless it
  is within the tolerance;
- with missing pods the ratio is recomputed conservatively (missing pods at 100% of their request on
  the way down, at 0 on the way up; unready pods at 0 when scaling up), and the scale is kept when the
  direction flips or the change falls within the tolerance;
- a Pods metric goes the same way as an average-value resource metric, without CPU readiness rules;
- an Object or External metric with a value target scales the Running and Ready pods by its ratio to
  the target (or, at zero replicas, asks for the ratio rounded up, so a target can scale from zero);
  with an average-value target, the metric divided by the target is the replica count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from svc.machinery.quantity import Quantity, QuantityFormat, parse_quantity

Obj = dict[str, Any]


class ReplicaCalculationError(Exception):
    """No replica count could be computed (upstream's message as the text)."""


@dataclass(frozen=True)
class Tolerances:
    """How far below and above 1.0 a usage ratio may be and still keep the scale."""

    scale_down: float = 0.1
    scale_up: float = 0.1

    def within(self, ratio: float) -> bool:
        return (1.0 - self.scale_down) <= ratio <= (1.0 + self.scale_up)


@dataclass(frozen=True)
class PodMetric:
    value: int
    """Milli-units summed over the containers considered."""
    timestamp: float
    window: float


@dataclass(frozen=True)
class Readiness:
    cpu_initialization_period: float = 300.0
    initial_readiness_delay: float = 30.0


@dataclass
class Grouped:
    ready: int = 0
    unready: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)
    ignored: set[str] = field(default_factory=set)


def milli_value(text: Any) -> int:
    """Upstream's `MilliValue`: the quantity in thousandths, rounded up."""
    return math.ceil(parse_quantity(str(text)).value * 1000)


def milli_quantity(milli: int) -> str:
    """Upstream's `NewMilliQuantity(milli, DecimalSI)` as written in a status."""
    return Quantity(Decimal(milli) / 1000, QuantityFormat.DECIMAL_SI).canonical()


def parse_time(text: str | None) -> float | None:
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _ready_condition(pod: Obj) -> Obj | None:
    return next((c for c in (pod.get("status") or {}).get("conditions") or () if c.get("type") == "Ready"), None)


def _cpu_unready(pod: Obj, metric: PodMetric, readiness: Readiness, now: float) -> bool:
    condition = _ready_condition(pod)
    started = parse_time((pod.get("status") or {}).get("startTime"))
    if condition is None or started is None:
        return True
    transition = parse_time(condition.get("lastTransitionTime")) or 0.0
    if started + readiness.cpu_initialization_period > now:
        return condition.get("status") == "False" or metric.timestamp < transition + metric.window
    return condition.get("status") == "False" and started + readiness.initial_readiness_delay > transition


def group_pods(
    pods: list[Obj], metrics: dict[str, PodMetric], resource: str, readiness: Readiness, now: float
) -> Grouped:
    grouped = Grouped()
    for pod in pods:
        name = pod["metadata"]["name"]
        phase = (pod.get("status") or {}).get("phase")
        if pod["metadata"].get("deletionTimestamp") or phase == "Failed":
            grouped.ignored.add(name)
            continue
        if phase == "Pending":
            grouped.unready.add(name)
            continue
        metric = metrics.get(name)
        if metric is None:
            grouped.missing.add(name)
            continue
        if resource == "cpu" and _cpu_unready(pod, metric, readiness, now):
            grouped.unready.add(name)
            continue
        grouped.ready += 1
    return grouped


def pod_requests(pods: list[Obj], resource: str, container: str = "") -> dict[str, int]:
    """Each pod's request of `resource` in milli-units (only `container` when named): a container
    without one is an error, as upstream (the pod-level request counts when the pod declares one)."""
    requests = {}
    for pod in pods:
        spec = pod.get("spec") or {}
        pod_level = ((spec.get("resources") or {}).get("requests") or {}).get(resource)
        if pod_level is not None and not container:
            requests[pod["metadata"]["name"]] = milli_value(pod_level)
            continue
        total = 0
        for entry in spec.get("containers") or ():
            if container and entry.get("name") != container:
                continue
            request = ((entry.get("resources") or {}).get("requests") or {}).get(resource)
            if request is None:
                raise ReplicaCalculationError(
                    f"missing request for {resource} in container {entry.get('name')} of Pod {pod['metadata']['name']}"
                )
            total += milli_value(request)
        requests[pod["metadata"]["name"]] = total
    return requests


def utilization_ratio(metrics: dict[str, int], requests: dict[str, int], target: int) -> tuple[float, int, int]:
    """(usage ratio, utilization percent, average raw value) over the pods with both a sample and a request."""
    metrics_total = requests_total = count = 0
    for name, value in metrics.items():
        request = requests.get(name)
        if request is None:
            continue
        metrics_total += value
        requests_total += request
        count += 1
    if requests_total == 0:
        raise ReplicaCalculationError("no metrics returned matched known pods")
    utilization = int(metrics_total * 100 / requests_total)
    return utilization / target, utilization, metrics_total // count


def usage_ratio(metrics: dict[str, int], target: int) -> tuple[float, int]:
    """(usage ratio, average per pod) against an average-value target, as upstream (integer average)."""
    average = sum(metrics.values()) // len(metrics)
    return (average / target if target else math.inf), average


@dataclass(frozen=True)
class Recommendation:
    replicas: int
    utilization: int | None
    """Percent of request (utilization targets only)."""
    raw_value: int
    """Average milli-units per pod."""


def resource_replicas(
    current_replicas: int,
    pods: list[Obj],
    samples: dict[str, PodMetric],
    resource: str,
    *,
    target_utilization: int | None = None,
    target_average_value: int | None = None,
    container: str = "",
    tolerances: Tolerances = Tolerances(),
    readiness: Readiness = Readiness(),
    now: float,
) -> Recommendation:
    """The replica count for one resource metric (utilization percent or average milli-value target)."""
    if not pods:
        raise ReplicaCalculationError("no pods returned by selector while calculating replica count")
    grouped = group_pods(pods, samples, resource, readiness, now)
    values = {
        name: m.value for name, m in samples.items() if name not in grouped.ignored and name not in grouped.unready
    }
    if not values:
        raise ReplicaCalculationError("did not receive metrics for targeted pods (pods might be unready)")
    if target_utilization is not None:
        requests = pod_requests(pods, resource, container)
        ratio, utilization, raw = utilization_ratio(values, requests, target_utilization)
    else:
        assert target_average_value is not None
        requests = {}
        ratio, raw = usage_ratio(values, target_average_value)
        utilization = None
    scale_up_with_unready = bool(grouped.unready) and ratio > 1.0
    if not scale_up_with_unready and not grouped.missing:
        if tolerances.within(ratio):
            return Recommendation(current_replicas, utilization, raw)
        return Recommendation(math.ceil(ratio * grouped.ready), utilization, raw)
    if grouped.missing:
        for name in grouped.missing:
            if ratio < 1.0:
                if target_utilization is not None:
                    values[name] = requests.get(name, 0) * max(100, target_utilization) // 100
                else:
                    values[name] = target_average_value or 0
            elif ratio > 1.0:
                values[name] = 0
    if scale_up_with_unready:
        for name in grouped.unready:
            values[name] = 0
    if target_utilization is not None:
        new_ratio, _, _ = utilization_ratio(values, requests, target_utilization)
    else:
        new_ratio, _ = usage_ratio(values, target_average_value or 0)
    if tolerances.within(new_ratio) or (ratio < 1.0 < new_ratio) or (new_ratio < 1.0 < ratio):
        return Recommendation(current_replicas, utilization, raw)
    replicas = math.ceil(new_ratio * len(values))
    if (new_ratio < 1.0 and replicas > current_replicas) or (new_ratio > 1.0 and replicas < current_replicas):
        return Recommendation(current_replicas, utilization, raw)
    return Recommendation(replicas, utilization, raw)


def ready_pod_count(pods: list[Obj]) -> int:
    """The Running pods with a true Ready condition (upstream's `getReadyPodsCount`)."""
    if not pods:
        raise ReplicaCalculationError("no pods returned by selector while calculating replica count")
    return sum(
        1
        for pod in pods
        if (pod.get("status") or {}).get("phase") == "Running" and (_ready_condition(pod) or {}).get("status") == "True"
    )


def usage_ratio_replicas(current_replicas: int, ratio: float, tolerances: Tolerances, pods: list[Obj]) -> int:
    """Upstream's `getUsageRatioReplicaCount`: the ready pods scaled by the ratio, or, at zero replicas
    (where there is nothing to scale), the ratio itself rounded up."""
    if current_replicas == 0:
        return math.ceil(ratio)
    if tolerances.within(ratio):
        return current_replicas
    try:
        ready = ready_pod_count(pods)
    except ReplicaCalculationError as error:
        raise ReplicaCalculationError(f"unable to calculate ready pods: {error}") from None
    return math.ceil(ratio * ready)


def per_pod_replicas(status_replicas: int, usage: int, target_per_pod: int, tolerances: Tolerances) -> tuple[int, int]:
    """(replicas, usage per replica) for an average-value target on one total (upstream's
    `GetObjectPerPodMetricReplicas` and `GetExternalPerPodMetricReplicas`): the total over the
    target per pod, unless the current replicas are within the tolerance of it."""
    replicas = status_replicas
    capacity = target_per_pod * status_replicas
    ratio = usage / capacity if capacity else math.inf
    if not tolerances.within(ratio):
        replicas = math.ceil(usage / target_per_pod)
    return replicas, math.ceil(usage / status_replicas) if status_replicas else usage
