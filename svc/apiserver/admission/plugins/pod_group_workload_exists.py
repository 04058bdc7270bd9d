"""PodGroupWorkloadExists: a new PodGroup made from a Workload's template
(`spec.podGroupTemplateRef.workload`) is refused unless that Workload exists, is not being deleted and
has the named PodGroupTemplate, with upstream's messages. Only with the GenericWorkload gate on."""

from __future__ import annotations

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

GROUP = "scheduling.k8s.io"


class PodGroupWorkloadExists:
    resources = frozenset({(GROUP, "podgroups")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def validate(self, attributes: Attributes) -> None:
        obj = attributes.object
        if attributes.operation is not Operation.CREATE or not isinstance(obj, dict):
            return
        if not targets(attributes, GROUP, "podgroups"):
            return
        reference = ((obj.get("spec") or {}).get("podGroupTemplateRef") or {}).get("workload")
        if reference is None:
            return
        name, template = reference.get("workloadName", ""), reference.get("podGroupTemplateName", "")
        workload = await self._context.get(GROUP, "workloads", attributes.namespace, name)
        if workload is None:
            raise forbidden(attributes, f'PodGroup rejected: Workload "{name}" not found')
        if (workload.get("metadata") or {}).get("deletionTimestamp"):
            raise forbidden(attributes, f'PodGroup rejected: Workload "{name}" is being deleted')
        templates = (workload.get("spec") or {}).get("podGroupTemplates") or []
        if not any(t.get("name") == template for t in templates):
            raise forbidden(
                attributes, f'PodGroup rejected: PodGroupTemplate "{template}" not found in Workload "{name}"'
            )


def build(context: PluginContext) -> PodGroupWorkloadExists | None:
    if not context.server.options.feature_gates.enabled("GenericWorkload"):
        return None
    return PodGroupWorkloadExists(context)
