"""RuntimeClass: a pod naming a RuntimeClass gets its pod overhead and its scheduling constraints (node
selector, tolerations); the class must exist, and an overhead must match the class's."""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import is_pod
from svc.apiserver.admission.quantities import resource_list
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
GROUP = "node.k8s.io"
_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"


def merge_tolerations(first: list[Obj], second: list[Obj]) -> list[Obj]:
    """Both lists without duplicates, in order (upstream's MergeTolerations, simplified); copies, as
    the second list may belong to a cached object."""
    merged: list[Obj] = []
    for toleration in [*first, *second]:
        if toleration not in merged:
            merged.append(dict(toleration))
    return merged


class RuntimeClass:
    resources = frozenset({("", "pods")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def _class(self, attributes: Attributes) -> tuple[Obj, Obj | None] | None:
        if not is_pod(attributes) or attributes.operation is not Operation.CREATE:
            return None
        spec = (attributes.object or {}).setdefault("spec", {})
        name = spec.get("runtimeClassName")
        if not name:
            return spec, None
        found = await self._context.get(GROUP, "runtimeclasses", "", name)
        if found is None:
            raise forbidden(attributes, f'pod rejected: RuntimeClass "{name}" not found')
        return spec, found

    async def admit(self, attributes: Attributes) -> None:
        resolved = await self._class(attributes)
        if resolved is None or resolved[1] is None:
            return
        spec, runtime_class = resolved
        fixed = (runtime_class.get("overhead") or {}).get("podFixed")
        if fixed is not None:
            if spec.get("overhead") and resource_list(spec["overhead"]) != resource_list(fixed):
                raise forbidden(attributes, _MISMATCH)
            spec["overhead"] = dict(fixed)
        scheduling = runtime_class.get("scheduling") or {}
        selector = scheduling.get("nodeSelector") or {}
        if selector:
            own = dict(spec.get("nodeSelector") or {})
            for key, value in selector.items():
                if key in own and own[key] != value:
                    raise forbidden(
                        attributes,
                        f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                        f"pod.spec.nodeSelector[{key}] = {own[key]}",
                    )
                own[key] = value
            spec["nodeSelector"] = own
        if scheduling.get("tolerations"):
            spec["tolerations"] = merge_tolerations(spec.get("tolerations") or [], scheduling["tolerations"])

    async def validate(self, attributes: Attributes) -> None:
        resolved = await self._class(attributes)
        if resolved is None:
            return
        spec, runtime_class = resolved
        fixed = ((runtime_class or {}).get("overhead") or {}).get("podFixed")
        if fixed is not None:
            if resource_list(spec.get("overhead")) != resource_list(fixed):
                raise forbidden(attributes, _MISMATCH)
        elif spec.get("overhead") is not None:
            raise forbidden(
                attributes, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
            )


def build(context: PluginContext) -> RuntimeClass:
    return RuntimeClass(context)
