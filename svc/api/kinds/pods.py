"""Pods: initial phase and QoS class and merged affinity label keys, as upstream's pod strategy sets them on
create, and the parts of a pod its subresources change."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from svc.api.kinds.pod_affinity_keys import merge_label_keys
from svc.api.kinds.pod_qos import qos_class
from svc.api.kinds.pod_resize import ResizeRules, resize_errors
from svc.api.kinds.pod_updates import ephemeral_containers_errors, ephemeral_containers_only, resize_only
from svc.api.status_metadata import kept_for
from svc.api.strategy import Strategy, status_only
from svc.api.validation import rules_for
from svc.api.validation.gates import Gates, pod_options_for, using
from svc.api.validation.pod_annotations import MIRROR
from svc.machinery.field_errors import FieldError


def strategy(base: Strategy, gates: Gates) -> Strategy:
    """With InPlacePodLevelResourcesVerticalScaling, a resize also changes the pod-level `spec.resources`;
    a static pod (its mirror carries the profile's `config.mirror` annotation) is neither resized nor
    debugged."""
    pod_level = gates.enabled("InPlacePodLevelResourcesVerticalScaling")
    mirror = base.profile.label(MIRROR)
    rules = rules_for("", "Pod", base.profile)

    def pod_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        if rules is None:
            return []
        with using(pod_options_for(gates, old.get("spec"))):
            return rules.revalidate(new, old)

    resize = ResizeRules(
        pod_level=pod_level,
        init_containers=gates.enabled("InPlacePodVerticalScalingInitContainers"),
        mirror=mirror,
        pod_errors=pod_errors,
    )

    def prepare_for_create(obj: dict[str, Any]) -> None:
        merge_label_keys(obj)
        obj["status"] = {"phase": "Pending", "qosClass": qos_class(obj.get("spec") or {})}

    return dataclasses.replace(
        base,
        prepare_for_create=prepare_for_create,
        # The binding action (svc/registry/pods/binding.py) hands the whole bound pod to the store.
        extra_subresource_updates={
            "binding": _as_bound,
            "ephemeralcontainers": ephemeral_containers_only,
            "resize": functools.partial(resize_only, pod_level=pod_level),
            "status": _status,
        },
        subresource_validators={
            **base.subresource_validators,
            "ephemeralcontainers": functools.partial(ephemeral_containers_errors, mirror=mirror, pod_errors=pod_errors),
            "resize": functools.partial(resize_errors, rules=resize),
        },
        deletion_grace=deletion_grace,
    )


def deletion_grace(pod: dict[str, Any], requested: int | None) -> int:
    """Upstream's `CheckGracefulDelete` of pods: the request's grace, else the pod's
    `terminationGracePeriodSeconds`; 0 for a pod no node runs (unscheduled, or already terminated)."""
    spec, phase = pod.get("spec") or {}, (pod.get("status") or {}).get("phase")
    if not spec.get("nodeName") or phase in ("Failed", "Succeeded"):
        return 0
    grace = requested if requested is not None else spec.get("terminationGracePeriodSeconds")
    grace = grace if isinstance(grace, int) else 0
    return 1 if grace < 0 else grace


def _as_bound(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    return new


def _status(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """The QoS class is set at creation and immutable; a status written without it keeps the stored one
    (upstream backfills it: old kubelets dropped it from pods they rejected)."""
    result = status_only(new, old, kept_for("", "Pod"))
    qos = (old.get("status") or {}).get("qosClass")
    if qos and isinstance(result.get("status"), dict) and not result["status"].get("qosClass"):
        result["status"] = {**result["status"], "qosClass": qos}
    return result
