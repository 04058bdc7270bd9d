"""Which parts of a container a resize may change: only its cpu and memory requests and limits.

Upstream's `ValidatePodResize` puts the stored cpu and memory values back into each resized container
(`dropCPUMemoryResourcesFromContainer`) and compares what is left with the stored container, as
`Semantic.DeepEqual` does (quantities by value, an empty list or map equal to an absent one). Anything
else the resize strategy let through differs then: another resource's amount, or the `resizePolicy`.
A requests or limits list the stored container lacks is dropped whole before the comparison (upstream
gives back nil for it), so adding one is left to the QoS check.
"""

from __future__ import annotations

from typing import Any

from svc.machinery.field_errors import FieldError, forbidden
from svc.machinery.quantity import QuantityError, parse_quantity

Obj = dict[str, Any]
_RESIZABLE = ("cpu", "memory")


def _with_stored_cpu_memory(requested: Obj | None, stored: Obj | None) -> Obj | None:
    if not stored:
        return None
    munged = {name: value for name, value in (requested or {}).items() if name not in _RESIZABLE}
    munged.update({name: stored[name] for name in _RESIZABLE if name in stored})
    return munged


def _amount(value: Any) -> Any:
    try:
        return parse_quantity(value) if isinstance(value, str) else value
    except QuantityError:
        return value


def _same_list(one: Obj | None, other: Obj | None) -> bool:
    one, other = one or {}, other or {}
    return one.keys() == other.keys() and all(_amount(one[name]) == _amount(other[name]) for name in one)


def _only_cpu_memory_changed(container: Obj, stored: Obj) -> bool:
    resources, before = container.get("resources") or {}, stored.get("resources") or {}
    for kind in ("limits", "requests"):
        if not _same_list(_with_stored_cpu_memory(resources.get(kind), before.get(kind)), before.get(kind)):
            return False
    if (resources.get("claims") or []) != (before.get("claims") or []):
        return False
    return (container.get("resizePolicy") or []) == (stored.get("resizePolicy") or [])


def _restartable(container: Obj) -> bool:
    return container.get("restartPolicy") == "Always"


def mutability_errors(spec: Obj, old_spec: Obj) -> list[FieldError]:
    """Upstream's refusals of a resize that changes more than cpu and memory, one per container, in
    the order it checks them: regular containers, then sidecar (restartable init) containers."""
    errors: list[FieldError] = []
    stored = {c.get("name"): c for c in old_spec.get("containers") or []}
    for container in spec.get("containers") or []:
        before = stored.get(container.get("name"))
        if before is not None and not _only_cpu_memory_changed(container, before):
            errors.append(forbidden("spec", "only cpu and memory resources are mutable"))
    stored = {c.get("name"): c for c in old_spec.get("initContainers") or []}
    for container in spec.get("initContainers") or []:
        before = stored.get(container.get("name"))
        if before is not None and _restartable(before) and not _only_cpu_memory_changed(container, before):
            errors.append(forbidden("spec", "only cpu and memory resources for sidecar containers are mutable"))
    return errors
