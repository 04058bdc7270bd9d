"""Priority: a pod's `priority` and `preemptionPolicy` come from its PriorityClass (or the global
default class, else 0), never from the pod; a missing class is forbidden; only one class may be the
global default. The two system classes are created at start (`SYSTEM_PRIORITY_CLASSES`)."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import is_pod, targets
from svc.apiserver.admission.registry import PluginContext
from svc.machinery import status
from svc.registry.admission import Attributes, NoAdmission, Operation, UserInfo
from svc.registry.options import WriteOptions

Obj = dict[str, Any]
GROUP = "scheduling.k8s.io"
SYSTEM_CRITICAL = 2_000_000_000
SYSTEM_PRIORITY_CLASSES: tuple[Obj, ...] = (
    {
        "metadata": {"name": "system-node-critical"},
        "value": SYSTEM_CRITICAL + 1000,
        "description": "Used for system critical pods that must not be moved from their current node.",
    },
    {
        "metadata": {"name": "system-cluster-critical"},
        "value": SYSTEM_CRITICAL,
        "description": "Used for system critical pods that must run in the cluster, but can be moved to another "
        "node if necessary.",
    },
)


class Priority:
    resources = frozenset({("", "pods"), (GROUP, "priorityclasses")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context

    def _default_class(self) -> Obj | None:
        """The global default class; with several, the one of lowest value (as upstream picks)."""
        defaults = [pc for pc in self._context.list(GROUP, "priorityclasses") if pc.get("globalDefault")]
        return min(defaults, key=lambda pc: pc.get("value", 0), default=None)

    async def admit(self, attributes: Attributes) -> None:
        if not is_pod(attributes):
            return
        spec = (attributes.object or {}).setdefault("spec", {})
        if attributes.operation is Operation.UPDATE:
            old = (attributes.old_object or {}).get("spec") or {}
            for field in ("priority", "preemptionPolicy"):
                if spec.get(field) is None and old.get(field) is not None:
                    spec[field] = old[field]
            return
        if attributes.operation is not Operation.CREATE:
            return
        name = spec.get("priorityClassName") or ""
        if name:
            chosen = await self._context.get(GROUP, "priorityclasses", "", name)
            if chosen is None:
                raise forbidden(attributes, f"no PriorityClass with name {name} was found")
            value, policy = chosen.get("value", 0), chosen.get("preemptionPolicy")
        else:
            default = self._default_class()
            if default is not None:
                spec["priorityClassName"] = default["metadata"]["name"]
                value, policy = default.get("value", 0), default.get("preemptionPolicy")
            else:
                value, policy = 0, "PreemptLowerPriority"
        if spec.get("priority") is not None and spec["priority"] != value:
            raise forbidden(
                attributes,
                f"the integer value of priority ({spec['priority']}) must not be provided in pod spec; priority "
                f"admission controller computed {value} from the given PriorityClass name",
            )
        spec["priority"] = value
        if policy is not None:
            if spec.get("preemptionPolicy") is not None and spec["preemptionPolicy"] != policy:
                raise forbidden(
                    attributes,
                    f"the string value of PreemptionPolicy ({spec['preemptionPolicy']}) must not be provided in pod "
                    f"spec; priority admission controller computed {policy} from the given PriorityClass name",
                )
            spec["preemptionPolicy"] = policy

    async def validate(self, attributes: Attributes) -> None:
        if not targets(attributes, GROUP, "priorityclasses") or not isinstance(attributes.object, dict):
            return
        if attributes.operation not in (Operation.CREATE, Operation.UPDATE):
            return
        if not attributes.object.get("globalDefault"):
            return
        default = self._default_class()
        if default is None:
            return
        name = default["metadata"]["name"]
        if attributes.operation is Operation.CREATE or name != attributes.object["metadata"].get("name"):
            why = f"PriorityClass {name} is already marked as default. Only one default can exist"
            raise forbidden(attributes, why)


def build(context: PluginContext) -> Priority:
    return Priority(context)


async def create_system_priority_classes(server: Any, user: UserInfo) -> None:
    """Upstream's `scheduling/bootstrap-system-priority-classes` start hook: both system classes exist
    (an existing one is left alone)."""
    try:
        store = server.store_for(GROUP, "priorityclasses")
    except status.StatusError:
        return  # the group is turned off
    for system_class in SYSTEM_PRIORITY_CLASSES:
        obj = {"apiVersion": store.resource.api_version, "kind": "PriorityClass", **copy.deepcopy(system_class)}
        with contextlib.suppress(status.StatusError):
            await store.create("", obj, admission=NoAdmission(), user=user, options=WriteOptions())
