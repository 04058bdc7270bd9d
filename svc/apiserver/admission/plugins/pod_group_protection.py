"""PodGroupProtection: a new PodGroup gets the `<scheduling group>/podgroup-protection` finalizer, so
the PodGroup protection controller can hold its deletion while pods still reference it. Only with the
GenericWorkload gate on, as upstream (CompositePodGroups are not served here)."""

from __future__ import annotations

from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

GROUP = "scheduling.k8s.io"


class PodGroupProtection:
    resources = frozenset({(GROUP, "podgroups")})

    def __init__(self, context: PluginContext) -> None:
        self._finalizer = context.profile.group(GROUP) + "/podgroup-protection"

    async def admit(self, attributes: Attributes) -> None:
        obj = attributes.object
        if attributes.operation is not Operation.CREATE or not isinstance(obj, dict):
            return
        if not targets(attributes, GROUP, "podgroups"):
            return
        metadata = obj.setdefault("metadata", {})
        finalizers = list(metadata.get("finalizers") or [])
        if self._finalizer not in finalizers:
            metadata["finalizers"] = [*finalizers, self._finalizer]


def build(context: PluginContext) -> PodGroupProtection | None:
    if not context.server.options.feature_gates.enabled("GenericWorkload"):
        return None
    return PodGroupProtection(context)
