"""Which metadata a write through `/status` may change, per kind.

Upstream's status strategies differ here (`statusStrategy.PrepareForUpdate`): most copy only the spec
back from the stored object, so labels, annotations and finalizers written through `/status` are kept;
some also copy back a few metadata fields (pods their owner references, deployments their labels);
newer kinds reset the metadata a status writer may not touch (`metav1.ResetObjectMetaForStatus`); and
a few, custom resources among them, keep the stored metadata whole. The generic `BeforeUpdate` fixes
the system fields (uid, creation and deletion timestamps, generation) whatever the kind.
"""

from __future__ import annotations

from typing import Any, Final

Kept = frozenset[str] | None
"""Metadata fields taken from the stored object; None: all of it (except what every write carries)."""

_SPEC_ONLY: Final[Kept] = frozenset()
# `metav1.ResetObjectMetaForStatus`
RESET_FOR_STATUS: Final[Kept] = frozenset(
    {"deletionTimestamp", "generation", "labels", "annotations", "finalizers", "ownerReferences"}
)
_WHOLE: Final[Kept] = None

KEPT_BY_KIND: Final[dict[tuple[str, str], Kept]] = {
    ("", "Namespace"): _SPEC_ONLY,
    ("", "Node"): _SPEC_ONLY,
    ("", "PersistentVolume"): _SPEC_ONLY,
    ("", "PersistentVolumeClaim"): _SPEC_ONLY,
    ("", "Pod"): frozenset({"ownerReferences"}),
    ("", "ReplicationController"): _SPEC_ONLY,
    ("", "ResourceQuota"): _SPEC_ONLY,
    ("", "Service"): _SPEC_ONLY,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): RESET_FOR_STATUS,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): frozenset(
        {"labels", "annotations", "ownerReferences", "generation"}
    ),
    ("apiregistration.k8s.io", "APIService"): frozenset({"labels", "annotations", "finalizers", "ownerReferences"}),
    ("apps", "DaemonSet"): _SPEC_ONLY,
    ("apps", "Deployment"): frozenset({"labels"}),
    ("apps", "ReplicaSet"): _SPEC_ONLY,
    ("apps", "StatefulSet"): _SPEC_ONLY,
    ("autoscaling", "HorizontalPodAutoscaler"): _SPEC_ONLY,
    ("batch", "CronJob"): _SPEC_ONLY,
    ("batch", "Job"): _SPEC_ONLY,
    ("certificates.k8s.io", "CertificateSigningRequest"): _SPEC_ONLY,
    ("certificates.k8s.io", "PodCertificateRequest"): RESET_FOR_STATUS,
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): _WHOLE,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): _WHOLE,
    ("internal.apiserver.k8s.io", "StorageVersion"): RESET_FOR_STATUS,
    ("networking.k8s.io", "Ingress"): _SPEC_ONLY,
    ("networking.k8s.io", "ServiceCIDR"): RESET_FOR_STATUS,
    ("policy", "PodDisruptionBudget"): _SPEC_ONLY,
    ("resource.k8s.io", "DeviceTaintRule"): RESET_FOR_STATUS,
    ("resource.k8s.io", "ResourceClaim"): RESET_FOR_STATUS,
    ("resource.k8s.io", "ResourcePoolStatusRequest"): RESET_FOR_STATUS,
    ("scheduling.k8s.io", "PodGroup"): RESET_FOR_STATUS,
    ("storage.k8s.io", "VolumeAttachment"): RESET_FOR_STATUS,
    ("storagemigration.k8s.io", "StorageVersionMigration"): RESET_FOR_STATUS,
}


def kept_for(upstream_group: str, kind: str) -> Kept:
    """The kind's rule; a kind not built in (a custom resource) keeps the stored metadata whole."""
    return KEPT_BY_KIND.get((upstream_group, kind), _WHOLE)


def status_metadata(new: dict[str, Any], old: dict[str, Any], kept: Kept) -> dict[str, Any]:
    """The metadata a status write stores: the request's, with the kind's kept fields and the system
    fields from the stored object. `new` carries the write's resourceVersion and managed fields."""
    if kept is None:
        metadata = dict(old)
        kept = frozenset()
    else:
        metadata = dict(new)
    metadata["resourceVersion"] = new.get("resourceVersion", "")
    if "managedFields" in new or "managedFields" in old:
        metadata["managedFields"] = new.get("managedFields", old.get("managedFields"))
    for key in kept | {"creationTimestamp", "deletionTimestamp", "generation"}:
        if key in old:
            metadata[key] = old[key]
        else:
            metadata.pop(key, None)
    for key in ("uid", "deletionGracePeriodSeconds"):
        if not metadata.get(key) and key in old:
            metadata[key] = old[key]
    return metadata
