"""A pod's QoS class, from its pod-level resources or else its containers' requests and limits."""

from __future__ import annotations

from typing import Any


def _guaranteed(resources: dict[str, Any]) -> bool:
    limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
    for name in ("cpu", "memory"):
        limit = limits.get(name)
        if limit is None or requests.get(name, limit) != limit:
            return False
    return True


def qos_class(spec: dict[str, Any]) -> str:
    """Upstream's QoS rule (`ComputePodQOS`): pod-level `resources`, when the pod has them, decide alone;
    otherwise no requests/limits in any container is BestEffort, limits equal to requests for cpu and
    memory in every container is Guaranteed, and anything else is Burstable."""
    pod_level = spec.get("resources")
    if isinstance(pod_level, dict):
        groups = [pod_level]
    else:
        containers = [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]
        groups = [container.get("resources") or {} for container in containers]
    if not any(resources.get("requests") or resources.get("limits") for resources in groups):
        return "BestEffort"
    return "Guaranteed" if all(_guaranteed(resources) for resources in groups) else "Burstable"
