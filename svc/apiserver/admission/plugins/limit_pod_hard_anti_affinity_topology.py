"""LimitPodHardAntiAffinityTopology: required pod anti-affinity may only spread pods over hosts (the
hostname topology key), so one pod cannot keep a whole zone to itself."""

from __future__ import annotations

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import is_pod
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation


class LimitPodHardAntiAffinityTopology:
    resources = frozenset({("", "pods")})

    def __init__(self, context: PluginContext) -> None:
        self._hostname = context.profile.label("kubernetes.io/hostname")

    async def validate(self, attributes: Attributes) -> None:
        if not is_pod(attributes) or attributes.operation not in (Operation.CREATE, Operation.UPDATE):
            return
        anti = (((attributes.object or {}).get("spec") or {}).get("affinity") or {}).get("podAntiAffinity") or {}
        for term in anti.get("requiredDuringSchedulingIgnoredDuringExecution") or []:
            key = term.get("topologyKey", "")
            if key != self._hostname:
                raise forbidden(
                    attributes,
                    f"affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey {key} but only key "
                    f"{self._hostname} is allowed",
                )


def build(context: PluginContext) -> LimitPodHardAntiAffinityTopology:
    return LimitPodHardAntiAffinityTopology(context)
