"""Binding a pod to a node (`pods/binding`, `bindings`): sets `spec.nodeName` once, as the scheduler does.

Upstream's `BindingREST.assignPod`: the pod must not be assigned already nor terminating, the Binding's
uid and resourceVersion are preconditions on the pod, its annotations are copied onto the pod, and the
`PodScheduled` condition becomes True.
"""

from __future__ import annotations

import copy
from typing import Any

from svc.machinery import status
from svc.machinery.field_errors import FieldError, aggregate_message, not_supported, required
from svc.registry.actions import ActionRequest
from svc.registry.admission import NoAdmission
from svc.registry.create import now_rfc3339
from svc.registry.options import WriteOptions

Obj = dict[str, Any]
_BINDING = status.GroupResource("", "pods/binding")


def _validate(binding: Obj) -> list[FieldError]:
    target = binding.get("target") or {}
    errors = []
    kind = target.get("kind") or ""
    if kind and kind != "Node":
        errors.append(not_supported("target.kind", kind, ["Node", "<empty>"]))
    if not target.get("name"):
        errors.append(required("target.name"))
    return errors


def scheduled(pod: Obj, when: str) -> None:
    conditions = pod.setdefault("status", {}).setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == "PodScheduled":
            if condition.get("status") != "True":
                condition.update(status="True", lastTransitionTime=when)
            return
    conditions.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": when})


async def bind(request: ActionRequest) -> None:
    binding = request.body
    metadata = binding.get("metadata") or {}
    name = metadata.get("name") or ""
    if request.name and name != request.name:
        raise status.bad_request("name in URL does not match name in Binding object")
    errors = _validate(binding)
    if errors:
        raise status.invalid("Binding", name, errors, aggregate_message(errors))
    node = binding["target"]["name"]
    uid, version = metadata.get("uid"), metadata.get("resourceVersion")

    async def assign(current: Obj | None) -> Obj:
        assert current is not None
        pod = copy.deepcopy(current)
        pod_metadata = pod["metadata"]
        why = ""
        if uid and uid != pod_metadata.get("uid"):
            why = f"Precondition failed: UID in precondition: {uid}, UID in object meta: {pod_metadata.get('uid')}"
        elif version and version != pod_metadata.get("resourceVersion"):
            why = (
                f"Precondition failed: ResourceVersion in precondition: {version}, "
                f"ResourceVersion in object meta: {pod_metadata.get('resourceVersion')}"
            )
        elif pod_metadata.get("deletionTimestamp"):
            why = f"pod {name} is being deleted, cannot be assigned to a host"
        elif (pod.get("spec") or {}).get("nodeName"):
            why = f'pod {name} is already assigned to node "{pod["spec"]["nodeName"]}"'
        if why:
            raise status.conflict(_BINDING, name, why)
        pod["spec"]["nodeName"] = node
        if metadata.get("annotations"):
            pod_metadata["annotations"] = {**(pod_metadata.get("annotations") or {}), **metadata["annotations"]}
        if metadata.get("labels"):  # the topology labels admission copied from the node (PodTopologyLabels)
            pod_metadata["labels"] = {**(pod_metadata.get("labels") or {}), **metadata["labels"]}
        scheduled(pod, now_rfc3339())
        return pod

    pods = request.store_for("", "pods")
    options = WriteOptions(dry_run=request.dry_run, subresource="binding")
    # admitted as the Binding's create already (upstream assigns the pod without admitting it again)
    await pods.update(request.namespace, name, assign, admission=NoAdmission(), user=request.user, options=options)
