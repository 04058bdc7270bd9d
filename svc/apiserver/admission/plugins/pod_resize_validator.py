"""PodResizeValidator: an in-place resize (`pods/resize`) of a pod bound to a node is refused when the
node could never hold it (its cpu or memory requests above the node's allocatable: cause
`NodeCapacity`) or the node is not Linux (cause `UnsupportedPlatform`), as upstream. The gate,
InPlacePodVerticalScaling, is GA and locked on, so the plugin always runs.
"""

from __future__ import annotations

import math
from typing import Any

from svc.api.quota_usage import pod_amount
from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.registry import PluginContext
from svc.machinery import status
from svc.machinery.quantity import quantity_or_none
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]


def _amount(value: Any, scale: int) -> int:
    """Go's `MilliValue()` (scale 1000) or `Value()` (scale 1): rounded up to an integer."""
    return math.ceil(value.value * scale) if value is not None else 0


def _with_cause(error: status.StatusError, reason: str) -> status.StatusError:
    details = dict(error.details or {})
    details["causes"] = [*details.get("causes", []), {"reason": reason}]
    error.details = details
    return error


def allocatable_shortfall(pod: Obj, node: Obj) -> str:
    """Upstream's message when the pod's requests exceed the node's allocatable; empty when they fit."""
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    short = []
    for name, scale in (("cpu", 1000), ("memory", 1)):
        requested = _amount(pod_amount(pod, "requests", name), scale)
        available = _amount(quantity_or_none(allocatable.get(name)), scale)
        if requested > available:
            short.append(f"{name}, requested: {requested}, allocatable: {available}")
    return f"Node didn't have enough allocatable resources: {'; '.join(short)}" if short else ""


class PodResizeValidator:
    resources = frozenset({("", "pods")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        self._os_label = context.profile.label("kubernetes.io/os")

    async def validate(self, attributes: Attributes) -> None:
        if attributes.operation is not Operation.UPDATE or attributes.subresource != "resize":
            return
        pod, old = attributes.object or {}, attributes.old_object or {}
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            return
        if (pod.get("metadata") or {}).get("generation") == (old.get("metadata") or {}).get("generation"):
            return
        node = await self._context.get("", "nodes", "", node_name)
        if node is None:
            raise forbidden(attributes, f'node "{node_name}" not found')
        shortfall = allocatable_shortfall(pod, node)
        if shortfall:
            raise _with_cause(forbidden(attributes, shortfall), "NodeCapacity")
        system = ((node.get("metadata") or {}).get("labels") or {}).get(self._os_label, "")
        if system != "linux":
            why = f'pod resize is only supported on linux nodes, node "{node_name}" is "{system}"'
            raise _with_cause(forbidden(attributes, why), "UnsupportedPlatform")


def build(context: PluginContext) -> PodResizeValidator:
    return PodResizeValidator(context)
