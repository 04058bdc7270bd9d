"""Upstream's `ValidatePodResize`: what a write through `pods/resize` may change.

It judges the pod `pod_updates.resize_only` made (the stored pod with the request's container resources
and resize policies, and its pod-level resources under InPlacePodLevelResourcesVerticalScaling), in
upstream's order: a static or Windows pod is refused outright (that is the only error told); otherwise
the pod is validated as a whole, its QoS class must stay, pod-level resources need their gate, a pod
with node-allocatable resource claims cannot be resized, requests and limits may change but never go
away, and only cpu and memory change (`dropCPUMemoryResourcesFromContainer` puts the stored cpu and
memory back and the rest must equal the stored container, as `Semantic.DeepEqual` compares: quantities
by value, an empty list or map equal to an absent one). Init containers other than sidecars resize
under InPlacePodVerticalScalingInitContainers, and then not with a `RestartContainer` resize policy.

Memory limits may be lowered: upstream refused that under the `NotRequired` policy in 1.33 only.
Upstream's version-skew check refuses a pod whose first running container is reported without
`resources` (its kubelet does not resize in place); svc's simulated kubelet reports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from svc.api.kinds.pod_qos import qos_class
from svc.machinery.field_errors import FieldError, forbidden, invalid
from svc.machinery.quantity import QuantityError, parse_quantity

Obj = dict[str, Any]
_RESIZABLE = ("cpu", "memory")


@dataclass(frozen=True)
class ResizeRules:
    """The server's side of the rules: its gates, its mirror-pod annotation, its pod validation."""

    pod_level: bool
    """InPlacePodLevelResourcesVerticalScaling."""
    init_containers: bool
    """InPlacePodVerticalScalingInitContainers."""
    mirror: str
    """The annotation a static pod's mirror carries (`kubernetes.io/config.mirror` in the profile's spelling)."""
    pod_errors: Callable[[Obj, Obj], list[FieldError]]
    """The pod's own validation of the resized pod against the stored one (`validatePodMetadataAndSpec`)."""


def _refusal(old: Obj, mirror: str) -> str:
    if mirror in ((old.get("metadata") or {}).get("annotations") or {}):
        return "static pods cannot be resized"
    if ((old.get("spec") or {}).get("os") or {}).get("name") == "windows":
        return "windows pods cannot be resized"
    return ""


def _has_pod_level_resources(spec: Obj) -> bool:
    resources = spec.get("resources") or {}
    return bool(resources.get("requests") or resources.get("limits"))


def _amount(value: Any) -> Any:
    try:
        return parse_quantity(value) if isinstance(value, str) else value
    except QuantityError:
        return value


def _same_list(one: Obj | None, other: Obj | None) -> bool:
    one, other = one or {}, other or {}
    return one.keys() == other.keys() and all(_amount(one[name]) == _amount(other[name]) for name in one)


def _with_stored_cpu_memory(requested: Obj | None, stored: Obj | None) -> Obj | None:
    """Upstream's `dropCPUMemoryUpdates`: the requested list with the stored cpu and memory."""
    if requested is None and stored is None:
        return None
    munged = {name: value for name, value in (requested or {}).items() if name not in _RESIZABLE}
    munged.update({name: (stored or {})[name] for name in _RESIZABLE if name in (stored or {})})
    return munged


def _other_than_cpu_memory_changed(container: Obj, stored: Obj) -> bool:
    resources, before = container.get("resources") or {}, stored.get("resources") or {}
    for kind in ("limits", "requests"):
        if not _same_list(_with_stored_cpu_memory(resources.get(kind), before.get(kind)), before.get(kind)):
            return True
    if before.get("claims"):  # upstream's munged resources keep no claims
        return True
    return (container.get("resizePolicy") or []) != (stored.get("resizePolicy") or [])


def _removed(new: Obj, old: Obj, path: str, what: str = "resource") -> list[FieldError]:
    """Requests and limits may change, never go away."""
    errors: list[FieldError] = []
    for kind in ("requests", "limits"):
        current = new.get(kind) or {}
        if any(resource not in current for resource in old.get(kind) or {}):
            errors.append(forbidden(f"{path}.{kind}", f"{what} {kind} cannot be removed"))
    return errors


def _pod_level_errors(spec: Obj, old_spec: Obj) -> list[FieldError]:
    """Upstream's `validatePodLevelResourcesResize`."""
    resources, before = spec.get("resources"), old_spec.get("resources")
    if before is not None and resources is None:
        return [forbidden("spec.resources", "pod-level resources cannot be removed")]
    errors = _removed(resources or {}, before or {}, "spec.resources", "pod-level resource") if before else []
    resources, before = resources or {}, before or {}
    changed = any(
        not _same_list(_with_stored_cpu_memory(resources.get(kind), before.get(kind)), before.get(kind))
        for kind in ("requests", "limits")
    )
    if changed or (resources.get("claims") or []) != (before.get("claims") or []):
        errors.append(forbidden("spec", "only cpu and memory resources are mutable at pod-level"))
    return errors


def _container_errors(spec: Obj, old_spec: Obj, rules: ResizeRules) -> list[FieldError]:
    """Removed requests or limits (init containers first), then changes beyond cpu and memory."""
    errors: list[FieldError] = []
    pairs = {
        group: list(zip(spec.get(group) or [], old_spec.get(group) or [], strict=False))
        for group in ("initContainers", "containers")
    }
    for group in ("initContainers", "containers"):
        for index, (container, stored) in enumerate(pairs[group]):
            if group == "containers" or rules.init_containers or _restartable(stored):
                path = f"spec.{group}[{index}].resources"
                errors += _removed(container.get("resources") or {}, stored.get("resources") or {}, path)
    for container, stored in pairs["containers"]:
        if _other_than_cpu_memory_changed(container, stored):
            errors.append(forbidden("spec", "only cpu and memory resources are mutable"))
    for index, (container, stored) in enumerate(pairs["initContainers"]):
        errors += _init_container_errors(container, stored, f"spec.initContainers[{index}]", rules)
    return errors


def _restartable(container: Obj) -> bool:
    return container.get("restartPolicy") == "Always"


def _init_container_errors(container: Obj, stored: Obj, path: str, rules: ResizeRules) -> list[FieldError]:
    modified = container != stored
    if not (_restartable(stored) or rules.init_containers):
        return [forbidden("spec", "resources for non-sidecar init containers are immutable")] if modified else []
    errors: list[FieldError] = []
    if _other_than_cpu_memory_changed(container, stored):
        errors.append(forbidden(path, "only cpu and memory resources for init or sidecar containers are mutable"))
    if modified and not _restartable(stored):
        detail = "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"
        policies = container.get("resizePolicy") or []
        errors += [forbidden(path, detail) for p in policies if p.get("restartPolicy") == "RestartContainer"]
    return errors


def _node_resizes(old: Obj) -> bool:
    """Upstream's `isPodResizeRequestSupported`: the first running container's status decides."""
    for status in (old.get("status") or {}).get("containerStatuses") or []:
        if "running" in (status.get("state") or {}):
            return "resources" in status
    return True


def resize_errors(new: Obj, old: Obj, *, rules: ResizeRules) -> list[FieldError]:
    """Upstream's `ValidatePodResize` of the pod `resize_only` made."""
    refusal = _refusal(old, rules.mirror)
    if refusal:
        return [forbidden("[]", refusal)]
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    errors = rules.pod_errors(new, old)
    old_class = (old.get("status") or {}).get("qosClass") or qos_class(old_spec)
    if qos_class(spec) != old_class:
        errors.append(invalid("spec", old_class, "Pod QOS Class may not change as a result of resizing"))
    if not _node_resizes(old):
        errors.append(forbidden("spec", "Pod running on node without support for resize"))
    if _has_pod_level_resources(old_spec) or _has_pod_level_resources(spec):
        if not rules.pod_level:
            detail = (
                "resize of pods with pod-level resources is forbidden when "
                "InPlacePodLevelResourcesVerticalScalingEnabled feature gate is disabled"
            )
            return [*errors, forbidden("[]", detail)]
        errors += _pod_level_errors(spec, old_spec)
    if (old.get("status") or {}).get("nodeAllocatableResourceClaimStatuses"):
        errors.append(forbidden("spec", "pods with node allocatable resource claims cannot be resized"))
    return errors + _container_errors(spec, old_spec, rules)
