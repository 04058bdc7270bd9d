"""TaintNodesByCondition: a new Node starts tainted not-ready (NoSchedule), so nothing is scheduled to
it before the node lifecycle controller sees it ready and removes the taint."""

from __future__ import annotations

from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation


class TaintNodesByCondition:
    resources = frozenset({("", "nodes")})

    def __init__(self, context: PluginContext) -> None:
        self._taint = {"key": context.profile.label("node.kubernetes.io/not-ready"), "effect": "NoSchedule"}

    async def admit(self, attributes: Attributes) -> None:
        node = attributes.object
        if attributes.operation is not Operation.CREATE or not isinstance(node, dict):
            return
        if not targets(attributes, "", "nodes"):
            return
        spec = node.setdefault("spec", {})
        taints = list(spec.get("taints") or [])
        if not any(t.get("key") == self._taint["key"] and t.get("effect") == "NoSchedule" for t in taints):
            spec["taints"] = [*taints, dict(self._taint)]


def build(context: PluginContext) -> TaintNodesByCondition:
    return TaintNodesByCondition(context)
