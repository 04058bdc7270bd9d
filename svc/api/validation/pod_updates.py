"""Pods: create rules and what an update may change (upstream's `ValidatePodCreate`/`ValidatePodUpdate`).

A pod's spec is fixed once created except for container images, the active deadline (which may only
shrink), added tolerations, removed scheduling gates, a negative grace period set to 1, and (while
the pod is gated) added node selector entries and node affinity requirements.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from svc.api.validation.containers import MAX_INT32
from svc.api.validation.engine import (
    At,
    Check,
    KindRules,
    UpdateCheck,
    inclusive_range,
    items,
    join,
    lookup,
    mapping,
    text,
)
from svc.api.validation.go_diff import go_diff
from svc.api.validation.pod_annotations import annotation_update_errors, pod_annotation_errors
from svc.api.validation.pod_gated_updates import gated_update_errors
from svc.api.validation.pods import POD_SPEC, image_whitespace_errors, toleration_errors
from svc.api.validation.ratchets import POD_RATCHETS
from svc.machinery.field_errors import (
    FieldError,
    forbidden,
    invalid,
    required,
)

UPDATABLE_POD_SPEC_FIELDS: Final = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)


def _container_updates(new: list[Any], old: list[Any], path: str) -> tuple[list[FieldError], bool]:
    if len(new) != len(old):
        return [forbidden(path, "pod updates may not add or remove containers")], True
    errors: list[FieldError] = []
    for index, container in enumerate(new):
        image = lookup(container, "image")
        if not image:
            errors.append(required(f"{path}[{index}].image"))
        elif isinstance(image, str) and image != image.strip():
            errors.append(invalid(f"{path}[{index}].image", image, "must not have leading or trailing whitespace"))
    return errors, False


def _only_added_tolerations(new: list[Any], old: list[Any], path: str) -> list[FieldError]:
    def without_seconds(toleration: Any) -> Any:
        return (
            {k: v for k, v in toleration.items() if k != "tolerationSeconds"}
            if isinstance(toleration, Mapping)
            else toleration
        )

    remaining = [without_seconds(toleration) for toleration in new]
    for toleration in old:
        if without_seconds(toleration) not in remaining:
            return [forbidden(path, "existing toleration can not be modified except its tolerationSeconds")]
    return toleration_errors(new, path)


def _only_deleted_gates(new: list[Any], old: list[Any], path: str) -> list[FieldError]:
    """Scheduling gates may be removed from a pod, never added."""
    known = {text(gate, "name") for gate in old}
    return [
        forbidden(
            f"{path}.schedulingGates[{index}].name", f"only deletion is allowed, but found new scheduling gate '{name}'"
        )
        for index, gate in enumerate(new)
        if (name := text(gate, "name")) not in known
    ]


def pod_spec_update_errors(new_pod: Any, old_pod: Any, base: str) -> list[FieldError]:
    """Upstream's `ValidatePodUpdate` after metadata and the full spec check: what may change in a spec."""
    new, old = mapping(new_pod, "spec"), mapping(old_pod, "spec")
    path = join(base, "spec")
    errors: list[FieldError] = []
    for key in ("containers", "initContainers"):
        found, stop = _container_updates(items(new.get(key)), items(old.get(key)), f"{path}.{key}")
        errors += found
        if stop:
            return errors
    deadline, old_deadline = new.get("activeDeadlineSeconds"), old.get("activeDeadlineSeconds")
    deadline_path = f"{path}.activeDeadlineSeconds"
    if deadline is not None:
        if not 0 <= deadline <= MAX_INT32:
            return [*errors, invalid(deadline_path, deadline, inclusive_range(0, MAX_INT32))]
        if old_deadline is not None and old_deadline < deadline:
            return [*errors, invalid(deadline_path, deadline, "must be less than or equal to previous value")]
    elif old_deadline is not None:
        errors.append(invalid(deadline_path, None, "must not update from a positive integer to nil value"))
    errors += _only_added_tolerations(
        items(new.get("tolerations")), items(old.get("tolerations")), f"{path}.tolerations"
    )
    errors += _only_deleted_gates(items(new.get("schedulingGates")), items(old.get("schedulingGates")), path)
    if new == old:
        return errors
    munged = _munged(new, old)
    errors += gated_update_errors(munged, old, path)
    if munged != old:
        detail = "pod updates may not change fields other than " + ",".join(UPDATABLE_POD_SPEC_FIELDS)
        errors.append(forbidden(path, f"{detail}\n{go_diff(old, munged, 'PodSpec')}"))
    return errors


def _with_image_of(container: Any, previous: Any) -> Any:
    if not isinstance(container, Mapping) or not isinstance(previous, Mapping):
        return container
    munged = {key: value for key, value in container.items() if key != "image"}
    if "image" in previous:
        munged["image"] = previous["image"]
    return munged


def _munged(new: Mapping[str, Any], old: Mapping[str, Any]) -> dict[str, Any]:
    """The new spec with every field a pod update may change taken from the old spec."""
    munged = dict(new)
    for key in ("containers", "initContainers"):
        if key in munged:
            munged[key] = [
                _with_image_of(container, previous)
                for container, previous in zip(munged[key], items(old.get(key)), strict=False)
            ]
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        if key in old:
            munged[key] = old[key]
        else:
            munged.pop(key, None)
    grace, old_grace = munged.get("terminationGracePeriodSeconds"), old.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    return munged


POD = KindRules(
    create=(
        Check(lambda obj, _: pod_annotation_errors(obj, "metadata.annotations")),
        At("spec", POD_SPEC),
        Check(lambda obj, base: image_whitespace_errors(lookup(obj, "spec"), "spec")),
    ),
    update=(
        UpdateCheck(lambda new, old, _: annotation_update_errors(new, old, "metadata.annotations")),
        UpdateCheck(pod_spec_update_errors),
    ),
    ratchets=POD_RATCHETS,
)
