"""The local APIServices: one per group version this server serves itself, as upstream's
autoregister controller keeps them.

Built-in group versions get upstream's priorities (`apiVersionPriorities` of kube-apiserver) and the
`onstart` automanaged label; group versions served for CRDs get the CRD registration controller's
priorities (1000/100) and the `true` label, and go when their CRD group goes. APIServices written by
users (no automanaged label) are never touched.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from svc.api.brand import Profile
from svc.api.resources import version_stage

Obj = dict[str, Any]

AUTOMANAGED_LABEL = "kube-aggregator.kubernetes.io/automanaged"
ON_START = "onstart"
MANAGED = "true"
CRD_GROUP_PRIORITY, CRD_VERSION_PRIORITY = 1000, 100

# (group priority, version priority) per upstream group version, as kube-apiserver registers them.
_PRIORITIES: dict[tuple[str, str], tuple[int, int]] = {
    ("", "v1"): (18000, 1),
    ("apiregistration.k8s.io", "v1"): (18000, 15),
    ("apps", "v1"): (17800, 15),
    ("events.k8s.io", "v1"): (17750, 15),
    ("authentication.k8s.io", "v1"): (17700, 15),
    ("authentication.k8s.io", "v1beta1"): (17700, 9),
    ("authentication.k8s.io", "v1alpha1"): (17700, 1),
    ("authorization.k8s.io", "v1"): (17600, 15),
    ("autoscaling", "v2"): (17500, 30),
    ("autoscaling", "v1"): (17500, 15),
    ("batch", "v1"): (17400, 15),
    ("certificates.k8s.io", "v1"): (17300, 15),
    ("certificates.k8s.io", "v1beta1"): (17300, 9),
    ("certificates.k8s.io", "v1alpha1"): (17300, 1),
    ("networking.k8s.io", "v1"): (17200, 15),
    ("networking.k8s.io", "v1beta1"): (17200, 9),
    ("networking.k8s.io", "v1alpha1"): (17200, 1),
    ("policy", "v1"): (17100, 15),
    ("rbac.authorization.k8s.io", "v1"): (17000, 15),
    ("storage.k8s.io", "v1"): (16800, 15),
    ("storage.k8s.io", "v1beta1"): (16800, 9),
    ("storage.k8s.io", "v1alpha1"): (16800, 1),
    ("apiextensions.k8s.io", "v1"): (16700, 15),
    ("admissionregistration.k8s.io", "v1"): (16700, 15),
    ("admissionregistration.k8s.io", "v1beta1"): (16700, 12),
    ("admissionregistration.k8s.io", "v1alpha1"): (16700, 9),
    ("scheduling.k8s.io", "v1"): (16600, 15),
    ("scheduling.k8s.io", "v1alpha1"): (16600, 9),
    ("coordination.k8s.io", "v1"): (16500, 15),
    ("coordination.k8s.io", "v1beta1"): (16500, 13),
    ("coordination.k8s.io", "v1alpha2"): (16500, 12),
    ("node.k8s.io", "v1"): (16300, 15),
    ("discovery.k8s.io", "v1"): (16200, 15),
    ("flowcontrol.apiserver.k8s.io", "v1"): (16100, 21),
    ("internal.apiserver.k8s.io", "v1alpha1"): (16000, 9),
    ("resource.k8s.io", "v1"): (15900, 15),
    ("resource.k8s.io", "v1beta2"): (15900, 12),
    ("resource.k8s.io", "v1beta1"): (15900, 9),
    ("resource.k8s.io", "v1alpha3"): (15900, 1),
    ("storagemigration.k8s.io", "v1beta1"): (15800, 10),
    ("storagemigration.k8s.io", "v1alpha1"): (15800, 9),
}
_STAGE_PRIORITY = {"ga": 15, "beta": 9, "alpha": 1}


def priorities(upstream_group: str, version: str) -> tuple[int, int]:
    """Upstream's priorities of a built-in group version; a group missing from the table sorts last."""
    known = _PRIORITIES.get((upstream_group, version))
    if known is not None:
        return known
    return 15000, _STAGE_PRIORITY.get(version_stage(version), 1)


def api_service_name(group: str, version: str) -> str:
    return f"{version}.{group}"


def local_api_service(profile: Profile, group: str, version: str, *, built_in: bool, api_version: str) -> Obj:
    """The APIService object of one locally served group version (`group` in the served spelling)."""
    if built_in:
        group_priority, version_priority = priorities(profile.upstream_group(group), version)
    else:
        group_priority, version_priority = CRD_GROUP_PRIORITY, CRD_VERSION_PRIORITY
    spec: Obj = {"version": version, "groupPriorityMinimum": group_priority, "versionPriority": version_priority}
    if group:
        spec = {"group": group, **spec}
    return {
        "apiVersion": api_version,
        "kind": "APIService",
        "metadata": {
            "name": api_service_name(group, version),
            "labels": {profile.label(AUTOMANAGED_LABEL): ON_START if built_in else MANAGED},
        },
        "spec": spec,
    }


def desired(
    profile: Profile, served: Iterable[tuple[str, str]], built_in: frozenset[str], api_version: str
) -> dict[str, Obj]:
    """Every local APIService this server should have, by name."""
    wanted = {}
    for group, version in served:
        obj = local_api_service(profile, group, version, built_in=group in built_in, api_version=api_version)
        wanted[obj["metadata"]["name"]] = obj
    return wanted


def automanaged(obj: Obj, profile: Profile) -> str:
    """The automanaged label's value (`onstart`, `true`), or "" for an APIService a user manages."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return labels.get(profile.label(AUTOMANAGED_LABEL), "")


def differs(current: Obj, wanted: Obj) -> bool:
    """Whether the spec or the automanaged label have drifted from what autoregister keeps."""
    current_labels = (current.get("metadata") or {}).get("labels") or {}
    return current.get("spec") != wanted["spec"] or any(
        current_labels.get(key) != value for key, value in wanted["metadata"]["labels"].items()
    )
