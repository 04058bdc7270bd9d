"""What `pods/ephemeralcontainers` and `pods/resize` may change, checked as upstream checks it.

Through `ephemeralcontainers` only `spec.ephemeralContainers` changes, and only by adding: an ephemeral
container, once added, can be neither changed nor removed (upstream
`ValidatePodEphemeralContainersUpdate`). Through `resize` only the containers' `resources` and
`resizePolicy` change (and the pod-level `resources` under InPlacePodLevelResourcesVerticalScaling),
judged by `pod_resize`.

Both run after mutating admission, on the pod it admitted, and after the request's defaults: upstream's
strategies take their part of the pod in `PrepareForUpdate`, which the store calls once admission has
mutated the request's object, so what a webhook changes elsewhere is dropped like the client's changes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from svc.api.status_metadata import RESET_FOR_STATUS, status_metadata
from svc.api.validation.go_diff import go_diff
from svc.machinery.field_errors import (
    FieldError,
    forbidden,
)

Obj = dict[str, Any]


def _with_metadata_of(new: Obj, old: Obj) -> Obj:
    """The stored pod with the request's metadata less what upstream's `ResetObjectMetaForStatus` takes
    back from the stored one (labels, annotations, finalizers, ...): the request's resourceVersion
    precondition and the managed fields recorded for the write stay."""
    result = copy.deepcopy(old)
    result["metadata"] = status_metadata(new["metadata"], old["metadata"], RESET_FOR_STATUS)
    return result


def _kept_errors(spec: Obj, old_spec: Obj) -> list[FieldError]:
    """Ephemeral containers, once added, are neither removed nor changed."""
    errors: list[FieldError] = []
    by_name = {c.get("name"): c for c in spec.get("ephemeralContainers") or []}
    for previous in old_spec.get("ephemeralContainers") or []:
        name = previous.get("name")
        current = by_name.get(name)
        if current is None:
            detail = f'existing ephemeral containers "{name}" may not be removed\n'
            errors.append(forbidden("spec.ephemeralContainers", detail))
        elif current != previous:
            diff = go_diff(previous, current, "EphemeralContainer")
            detail = f'existing ephemeral containers "{name}" may not be changed\n{diff}'
            errors.append(forbidden("spec.ephemeralContainers", detail))
    return errors


def ephemeral_containers_only(new: Obj, old: Obj) -> Obj:
    """The stored pod with the request's ephemeral containers; judged later by
    `ephemeral_containers_errors`, once the fields of disabled features are dropped, as upstream's
    strategy drops them in `PrepareForUpdate` before `ValidateUpdate`."""
    result = _with_metadata_of(new, old)
    ephemeral = (new.get("spec") or {}).get("ephemeralContainers")
    if ephemeral:
        result["spec"]["ephemeralContainers"] = ephemeral
    else:
        result["spec"].pop("ephemeralContainers", None)
    _next_generation(result, old)
    return result


def _annotated(pod: Obj, key: str) -> bool:
    return key in ((pod.get("metadata") or {}).get("annotations") or {})


def ephemeral_containers_errors(
    new: Obj, old: Obj, *, mirror: str, pod_errors: Callable[[Obj, Obj], list[FieldError]]
) -> list[FieldError]:
    """Upstream's `ValidatePodEphemeralContainersUpdate` of the pod `ephemeral_containers_only` made: the
    pod validated as a whole (`pod_errors`, which judges the ephemeral containers), then, but for a
    static pod (its mirror carries the `mirror` annotation; that refusal is then the only error told),
    the ephemeral containers already there kept as they were."""
    errors = pod_errors(new, old)
    if _annotated(old, mirror):
        return [forbidden("[]", "static pods do not support ephemeral containers")]
    return errors + _kept_errors(new.get("spec") or {}, old.get("spec") or {})


def _resources_by_name(spec: Obj) -> dict[str, Obj]:
    return {c.get("name"): c for c in (spec.get("initContainers") or []) + (spec.get("containers") or [])}


def _next_generation(result: Obj, old: Obj) -> None:
    """A resize or an added ephemeral container bumps the pod's generation, as upstream's strategies of
    both subresources do (`updatePodGeneration`; the PodResizeValidator admission plugin skips a resize
    that leaves the spec unchanged)."""
    generation = old["metadata"].get("generation")
    if generation is not None and result["spec"] != old.get("spec"):
        result["metadata"]["generation"] = generation + 1


def resize_only(new: Obj, old: Obj, *, pod_level: bool) -> Obj:
    """Copies each container's `resources` and `resizePolicy` from the request, by container name, and
    with `pod_level` (InPlacePodLevelResourcesVerticalScaling) the pod-level `spec.resources`; judged
    later by `resize_errors`, as upstream's strategy keeps them in `PrepareForUpdate` before
    `ValidateUpdate`."""
    result = _with_metadata_of(new, old)
    spec = new.get("spec") or {}
    wanted = _resources_by_name(spec)
    for group in ("initContainers", "containers"):
        for container in result["spec"].get(group) or []:
            requested = wanted.get(container.get("name"))
            if requested is not None:
                _copy(requested, container, ("resources", "resizePolicy"))
    if pod_level:
        _copy(spec, result["spec"], ("resources",))
    _next_generation(result, old)
    return result


def _copy(source: Obj, target: Obj, fields: tuple[str, ...]) -> None:
    for field in fields:
        if source.get(field):
            target[field] = source[field]
        else:
            target.pop(field, None)
