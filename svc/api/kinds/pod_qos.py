"""A pod's QoS class, from its containers' requests and limits."""

from __future__ import annotations

from typing import Any


def qos_class(spec: dict[str, Any]) -> str:
    """Upstream's QoS rule: no requests/limits at all is BestEffort; limits equal to requests for cpu
    and memory in every container is Guaranteed; anything else is Burstable."""
    containers = [*spec.get("initContainers", []), *spec.get("containers", [])]
    any_set = False
    guaranteed = True
    for container in containers:
        resources = container.get("resources") or {}
        requests = resources.get("requests") or {}
        limits = resources.get("limits") or {}
        if requests or limits:
            any_set = True
        for name in ("cpu", "memory"):
            limit = limits.get(name)
            if limit is None or requests.get(name, limit) != limit:
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"
