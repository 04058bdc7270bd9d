"""JobValidation: a Job whose pods form a gang-scheduled PodGroup (the template's
`schedulingGroup.podGroupName`, else a PodGroup the Job controls) may not change its parallelism, as
upstream; a PodGroup that cannot be found does not block the update. Only with the GenericWorkload or
WorkloadWithJob gate on."""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
SCHEDULING = "scheduling.k8s.io"


def _gang(group: Obj) -> bool:
    return ((group.get("spec") or {}).get("schedulingPolicy") or {}).get("gang") is not None


def _controlled_by(obj: Obj, owner: Obj) -> bool:
    uid = (owner.get("metadata") or {}).get("uid")
    references = (obj.get("metadata") or {}).get("ownerReferences") or []
    return any(ref.get("controller") and ref.get("uid") == uid for ref in references)


class JobValidation:
    resources = frozenset({("batch", "jobs")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def validate(self, attributes: Attributes) -> None:
        job, old = attributes.object, attributes.old_object
        if attributes.operation is not Operation.UPDATE or not targets(attributes, "batch", "jobs"):
            return
        if not isinstance(job, dict) or not isinstance(old, dict):
            return
        if (job.get("spec") or {}).get("parallelism") == (old.get("spec") or {}).get("parallelism"):
            return
        group = await self._gang_group(old)
        if group is not None:
            raise forbidden(
                attributes, f'cannot change parallelism for a Job referencing gang-scheduled PodGroup "{group}"'
            )

    async def _gang_group(self, job: Obj) -> str | None:
        """The name of the gang-scheduled PodGroup the Job's pods belong to, if any."""
        namespace = (job.get("metadata") or {}).get("namespace", "")
        template = ((job.get("spec") or {}).get("template") or {}).get("spec") or {}
        named = (template.get("schedulingGroup") or {}).get("podGroupName")
        if named is not None:
            group = await self._context.get(SCHEDULING, "podgroups", namespace, named)
            return named if group is not None and _gang(group) else None
        for group in self._context.list(SCHEDULING, "podgroups", namespace):
            if _controlled_by(group, job) and _gang(group):
                return (group.get("metadata") or {}).get("name", "")
        return None


def build(context: PluginContext) -> JobValidation | None:
    gates = context.server.options.feature_gates
    if not (gates.enabled("GenericWorkload") or gates.enabled("WorkloadWithJob")):
        return None
    return JobValidation(context)
