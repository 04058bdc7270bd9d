"""Upstream's defaulting of the built-in kinds, as pure functions on JSON-shaped objects.

Upstream fills in defaults whenever it decodes an object, from a request body and again when reading
it back from storage: its hand-written `SetDefaults_*` functions and `+default` markers, applied by
generated code to every nested type that has one. `apply_defaults` does the same for the GA kinds of
release 1.36 under the default feature gates. It is idempotent, so it may run again after a strategy
has filled fields in (upstream's second pass on read). Not defaults, and left to their owners:
allocation (cluster IPs, IP families, node ports), admission (service account volumes, tolerations,
priority), status, and fields that need a clock. Kinds without defaults and custom resources are
left untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.api.brand import Profile
from svc.api.defaults import (
    admission,
    apiextensions,
    apps,
    autoscaling,
    batch,
    certificates,
    core,
    discovery,
    flowcontrol,
    networking,
    pod_spec,
    rbac,
    resource,
    scheduling,
    services,
    storage,
)
from svc.api.defaults.walk import Obj

_ADMISSION = "admissionregistration.k8s.io"
_DEFAULTERS: dict[tuple[str, str], Callable[[Obj], None]] = {
    ("", "Pod"): pod_spec.pod,
    ("", "PodTemplate"): core.pod_template,
    ("", "ReplicationController"): core.replication_controller,
    ("", "Service"): services.service,
    ("", "Secret"): core.secret,
    ("", "PersistentVolume"): core.persistent_volume,
    ("", "PersistentVolumeClaim"): core.persistent_volume_claim,
    ("", "Endpoints"): core.endpoints,
    ("", "LimitRange"): core.limit_range,
    ("", "ResourceQuota"): core.resource_quota,
    ("apps", "Deployment"): apps.deployment,
    ("apps", "ReplicaSet"): apps.replica_set,
    ("apps", "StatefulSet"): apps.stateful_set,
    ("apps", "DaemonSet"): apps.daemon_set,
    ("batch", "Job"): batch.job,
    ("batch", "CronJob"): batch.cron_job,
    ("autoscaling", "HorizontalPodAutoscaler"): autoscaling.horizontal_pod_autoscaler,
    ("networking.k8s.io", "NetworkPolicy"): networking.network_policy,
    ("networking.k8s.io", "IngressClass"): networking.ingress_class,
    ("storage.k8s.io", "StorageClass"): storage.storage_class,
    ("storage.k8s.io", "CSIDriver"): storage.csi_driver,
    ("storage.k8s.io", "VolumeAttachment"): storage.volume_attachment,
    (_ADMISSION, "ValidatingWebhookConfiguration"): admission.validating_webhook_configuration,
    (_ADMISSION, "MutatingWebhookConfiguration"): admission.mutating_webhook_configuration,
    (_ADMISSION, "ValidatingAdmissionPolicy"): admission.admission_policy,
    (_ADMISSION, "MutatingAdmissionPolicy"): admission.admission_policy,
    (_ADMISSION, "ValidatingAdmissionPolicyBinding"): admission.admission_policy_binding,
    (_ADMISSION, "MutatingAdmissionPolicyBinding"): admission.admission_policy_binding,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): apiextensions.custom_resource_definition,
    ("apiregistration.k8s.io", "APIService"): apiextensions.api_service,
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): flowcontrol.flow_schema,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): flowcontrol.priority_level_configuration,
    ("discovery.k8s.io", "EndpointSlice"): discovery.endpoint_slice,
    ("scheduling.k8s.io", "PriorityClass"): scheduling.priority_class,
    ("resource.k8s.io", "ResourceClaim"): resource.resource_claim,
    ("resource.k8s.io", "ResourceClaimTemplate"): resource.resource_claim_template,
    ("certificates.k8s.io", "PodCertificateRequest"): certificates.pod_certificate_request,
}
# Kinds whose defaults spell a brand-bearing identifier.
_BRANDED: dict[tuple[str, str], Callable[[Obj, Profile], None]] = {
    (rbac.UPSTREAM_GROUP, "RoleBinding"): rbac.binding,
    (rbac.UPSTREAM_GROUP, "ClusterRoleBinding"): rbac.binding,
}


def has_defaults(upstream_group: str, kind: str) -> bool:
    """Whether upstream defaults any field of the kind (so callers can skip the others)."""
    return (upstream_group, kind) in _DEFAULTERS or (upstream_group, kind) in _BRANDED


def apply_defaults(upstream_group: str, kind: str, obj: Any, *, profile: Profile) -> None:
    """Fill in upstream's defaults for an object of the kind, in place.

    Fields of an unexpected JSON type are skipped, not repaired: validation reports them. Raises
    TypeError when `obj` itself is not a JSON object.
    """
    if not isinstance(obj, dict):
        raise TypeError(f"cannot default {kind or 'an object'}: expected a JSON object, got {type(obj).__name__}")
    identity = (upstream_group, kind)
    if identity in _BRANDED:
        _BRANDED[identity](obj, profile)
    elif identity in _DEFAULTERS:
        _DEFAULTERS[identity](obj)
