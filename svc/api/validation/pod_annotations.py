"""Annotations with meaning for pods, as upstream's `ValidatePodSpecificAnnotations` checks them on pods
and pod templates: the mirror-pod marker, the tolerations annotation (decoded as upstream's
`GetTolerationsFromPodAnnotations` decodes it, then validated as tolerations), the deletion cost, and the
deprecated seccomp and AppArmor annotations (still read by kubelets, so their values must be profiles a
kubelet understands)."""

from __future__ import annotations

import json
import re
from typing import Any, Final

from svc.api.validation.engine import items, join, lookup, string_map, text
from svc.api.validation.security import local_descending_path_errors
from svc.api.validation.tolerations import toleration_errors
from svc.machinery.field_errors import FieldError, forbidden, invalid
from svc.machinery.gotext.json_errors import syntax_error, type_error

MIRROR: Final = "kubernetes.io/config.mirror"
TOLERATIONS: Final = "scheduler.alpha.kubernetes.io/tolerations"
# The members of upstream's internal `core.Toleration` (no JSON tags: keys match case-insensitively).
_TOLERATION_FIELDS: Final = {
    "key": ("Key", "string"),
    "operator": ("Operator", "string"),
    "value": ("Value", "string"),
    "effect": ("Effect", "string"),
    "tolerationseconds": ("TolerationSeconds", "int64"),
}
DELETION_COST: Final = "controller.kubernetes.io/pod-deletion-cost"
SECCOMP_POD: Final = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_PREFIX: Final = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_PREFIX: Final = "container.apparmor.security.beta.kubernetes.io/"
_INT32: Final = re.compile(r"-?(0|[1-9][0-9]*)")
_LOCALHOST: Final = "localhost/"


def _deletion_cost_valid(value: str) -> bool:
    return bool(_INT32.fullmatch(value)) and -(2**31) <= int(value) < 2**31


def seccomp_profile_errors(profile: str, path: str) -> list[FieldError]:
    """Upstream's `ValidateSeccompProfile` for an annotation's value."""
    if profile in ("runtime/default", "docker/default", "unconfined"):
        return []
    if profile.startswith(_LOCALHOST):
        return local_descending_path_errors(profile.removeprefix(_LOCALHOST), path)
    return [invalid(path, profile, "must be a valid seccomp profile")]


def _decoded_toleration(item: Any) -> tuple[dict[str, Any], str | None]:
    """One list item as `json.Unmarshal` fills a `core.Toleration`: the members it sets, and the first
    type error (Go keeps decoding after one and reports the first)."""
    if item is None:
        return {}, None
    if not isinstance(item, dict):
        return {}, type_error(item, "core.Toleration")
    toleration: dict[str, Any] = {}
    for key, value in item.items():
        known = _TOLERATION_FIELDS.get(key.lower())
        if known is None or value is None:
            continue
        name, go_type = known
        fits = isinstance(value, str) if go_type == "string" else type(value) is int and -(2**63) <= value < 2**63
        if not fits:
            return toleration, type_error(value, go_type, f"Toleration.{name}")
        toleration[name[:1].lower() + name[1:]] = value
    return toleration, None


def _tolerations_annotation(value: str, base: str) -> list[FieldError]:
    """Upstream's `ValidateTolerationsInPodAnnotations`: a value `json.Unmarshal` refuses is Invalid with
    its error text, at the annotations; decoded tolerations are validated below the annotation's key."""
    problem = syntax_error(value)
    decoded = json.loads(value) if problem is None else None
    if problem is None and decoded is not None and not isinstance(decoded, list):
        problem = type_error(decoded, "[]core.Toleration")
    tolerations = []
    for item in decoded if isinstance(decoded, list) else []:
        toleration, item_problem = _decoded_toleration(item)
        problem = problem or item_problem
        tolerations.append(toleration)
    if problem is not None:
        return [invalid(base, TOLERATIONS, problem)]
    return toleration_errors(tolerations, join(base, TOLERATIONS))


def _container_names(spec: Any) -> set[str]:
    kinds = ("containers", "initContainers", "ephemeralContainers")
    return {text(container, "name") for kind in kinds for container in items(lookup(spec, kind))}


def pod_annotation_errors(node: Any, base: str) -> list[FieldError]:
    """`node` holds `metadata.annotations` and `spec`; `base` is where upstream reports the annotations."""
    annotations, spec = string_map(node, "metadata.annotations"), lookup(node, "spec")
    errors: list[FieldError] = []
    if MIRROR in annotations and not text(spec, "nodeName"):
        detail = "must set spec.nodeName if mirror pod annotation is set"
        errors.append(invalid(f"{base}[{MIRROR}]", annotations[MIRROR], detail))
    if annotations.get(TOLERATIONS):
        errors += _tolerations_annotation(annotations[TOLERATIONS], base)
    cost = annotations.get(DELETION_COST)
    if cost is not None and not _deletion_cost_valid(cost):
        errors.append(invalid(f"{base}[{DELETION_COST}]", cost, "must be a 32bit integer"))
    if SECCOMP_POD in annotations:
        errors += seccomp_profile_errors(annotations[SECCOMP_POD], join(base, SECCOMP_POD))
    for key, value in sorted(annotations.items()):
        if key.startswith(SECCOMP_CONTAINER_PREFIX):
            errors += seccomp_profile_errors(value, join(base, key))
    names: set[str] | None = None  # gathered only for a pod that has AppArmor annotations
    for key, profile in sorted(annotations.items()):
        if not key.startswith(APPARMOR_PREFIX):
            continue
        if names is None:
            names = _container_names(spec)
        container = key.removeprefix(APPARMOR_PREFIX)
        if container not in names:
            errors.append(invalid(f"{base}[{key}]", container, "container not found"))
        if profile and profile not in ("runtime/default", "unconfined") and not profile.startswith(_LOCALHOST):
            errors.append(invalid(f"{base}[{key}]", profile, f'invalid AppArmor profile name: "{profile}"'))
    return errors


def _guarded(key: str) -> str | None:
    """How upstream names an annotation that updates may not touch, or None for the others."""
    if key.startswith(APPARMOR_PREFIX):
        return "AppArmor annotations"
    if key == MIRROR:
        return "mirror pod annotation"
    return None


def annotation_update_errors(new: Any, old: Any, base: str) -> list[FieldError]:
    """`ValidatePodSpecificAnnotationUpdates`' comparisons: the mirror pod and AppArmor annotations are
    neither added, changed nor removed by an update (keys in sorted order)."""
    annotations, before = string_map(new, "metadata.annotations"), string_map(old, "metadata.annotations")
    errors: list[FieldError] = []
    for key, value in sorted(before.items()):
        guarded = _guarded(key)
        if guarded and annotations.get(key) != value:
            errors.append(forbidden(f"{base}[{key}]", f"may not remove or update {guarded}"))
    for key in sorted(annotations.keys() - before.keys()):
        guarded = _guarded(key)
        if guarded:
            errors.append(forbidden(f"{base}[{key}]", f"may not add {guarded}"))
    return errors
