"""PodTopologyLabels: binding a pod to a node copies the node's topology labels (the
`topology.k8s.io/` domain, and the well-known zone and region labels) onto the pod, so workloads can
read their zone through the downward API. Active with the PodTopologyLabelsAdmission gate (on by
default in 1.36)."""

from __future__ import annotations

from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

DOMAIN = "topology.k8s.io/"


class PodTopologyLabels:
    resources = frozenset({("", "pods"), ("", "bindings")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        label = context.profile.label
        self._well_known = frozenset({label("topology.kubernetes.io/zone"), label("topology.kubernetes.io/region")})

    async def admit(self, attributes: Attributes) -> None:
        binding = attributes.object
        if attributes.operation is not Operation.CREATE or not isinstance(binding, dict):
            return
        if not (targets(attributes, "", "pods", ("binding",)) or targets(attributes, "", "bindings")):
            return
        target = binding.get("target") or {}
        if target.get("kind", "Node") not in ("", "Node") or not target.get("name"):
            return
        node = await self._context.get("", "nodes", "", target["name"])
        labels = ((node or {}).get("metadata") or {}).get("labels") or {}
        copied = {k: v for k, v in labels.items() if k.startswith(DOMAIN) or k in self._well_known}
        if copied:
            metadata = binding.setdefault("metadata", {})
            metadata["labels"] = {**(metadata.get("labels") or {}), **copied}


def build(context: PluginContext) -> PodTopologyLabels | None:
    if not context.server.options.feature_gates.enabled("PodTopologyLabelsAdmission"):
        return None
    return PodTopologyLabels(context)
