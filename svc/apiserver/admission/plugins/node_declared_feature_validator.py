"""NodeDeclaredFeatureValidator: an update (or resize) of a pod bound to a node is refused when the
change needs a node feature the node does not declare in `status.declaredFeatures`, as upstream's
node-declared-features framework infers it: changing a container's cpu request on a Guaranteed pod
needs `GuaranteedQoSPodCPUResize`, changing pod-level resources needs
`InPlacePodLevelResourcesVerticalScaling`. Only with the NodeDeclaredFeatures gate on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.registry import PluginContext
from svc.machinery.quantity import quantity_or_none
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]


def _cpu_request(container: Obj) -> Any:
    value = quantity_or_none(((container.get("resources") or {}).get("requests") or {}).get("cpu"))
    return value.value if value is not None else 0


def guaranteed_cpu_resize(old: Obj, new: Obj) -> bool:
    """A Guaranteed pod whose containers' cpu requests change."""
    if (old.get("status") or {}).get("qosClass", "Guaranteed") != "Guaranteed":
        return False
    old_containers = (old.get("spec") or {}).get("containers") or []
    new_containers = (new.get("spec") or {}).get("containers") or []
    return any(_cpu_request(a) != _cpu_request(b) for a, b in zip(old_containers, new_containers, strict=False))


def pod_level_resources_resize(old: Obj, new: Obj) -> bool:
    """The pod-level `spec.resources` change."""
    before, after = (old.get("spec") or {}).get("resources"), (new.get("spec") or {}).get("resources")
    return not (before is None and after is None) and before != after


# Upstream's registry of 1.36, for updates (RestartAllContainersOnContainerExits only concerns scheduling).
UPDATE_FEATURES: tuple[tuple[str, Callable[[Obj, Obj], bool]], ...] = (
    ("GuaranteedQoSPodCPUResize", guaranteed_cpu_resize),
    ("InPlacePodLevelResourcesVerticalScaling", pod_level_resources_resize),
)


class NodeDeclaredFeatureValidator:
    resources = frozenset({("", "pods")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def validate(self, attributes: Attributes) -> None:
        if attributes.operation is not Operation.UPDATE or attributes.subresource not in ("", "resize"):
            return
        pod, old = attributes.object, attributes.old_object
        if not isinstance(pod, dict) or not isinstance(old, dict):
            return
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            return
        if (pod.get("metadata") or {}).get("generation") == (old.get("metadata") or {}).get("generation"):
            return
        required = [name for name, needed in UPDATE_FEATURES if needed(old, pod)]
        if not required:
            return
        node = await self._context.get("", "nodes", "", node_name)
        if node is None:
            raise forbidden(attributes, f'node "{node_name}" not found')
        declared = set((node.get("status") or {}).get("declaredFeatures") or [])
        missing = [name for name in required if name not in declared]
        if missing:
            why = f'pod update requires features {", ".join(missing)} which are not available on node "{node_name}"'
            raise forbidden(attributes, why)


def build(context: PluginContext) -> NodeDeclaredFeatureValidator | None:
    if not context.server.options.feature_gates.enabled("NodeDeclaredFeatures"):
        return None
    return NodeDeclaredFeatureValidator(context)
