"""Pods: initial phase and QoS class, as upstream's pod strategy sets them on create."""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.strategy import Strategy


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


def strategy(base: Strategy) -> Strategy:
    def prepare_for_create(obj: dict[str, Any]) -> None:
        obj["status"] = {"phase": "Pending", "qosClass": qos_class(obj.get("spec") or {})}

    return dataclasses.replace(base, prepare_for_create=prepare_for_create)
