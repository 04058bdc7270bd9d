"""Server-side table columns of the built-in kinds, as upstream's API server defines them.

A `Table` lists every column, `priority: 1` ones included (kubectl shows those with `-o wide`), and each
cell is computed from the object in its upstream JSON form. Kinds without a column set of their own get
the default `Name` / `Created At` table from the caller.
"""

from __future__ import annotations

from svc.api.columns import (
    admission,
    autoscaling,
    certificates,
    control_plane,
    core,
    dra,
    events,
    flowcontrol,
    networking,
    pods,
    policy,
    rbac,
    scheduling,
    storage,
    templates,
    workloads,
)
from svc.wire.views import Column, RowConditions

_COLUMNS: dict[tuple[str, str], tuple[Column, ...]] = {
    ("", "Pod"): pods.COLUMNS,
    ("", "ReplicationController"): workloads.REPLICATION_CONTROLLER,
    ("apps", "Deployment"): workloads.DEPLOYMENT,
    ("apps", "ReplicaSet"): workloads.REPLICA_SET,
    ("apps", "StatefulSet"): workloads.STATEFUL_SET,
    ("apps", "DaemonSet"): workloads.DAEMON_SET,
    ("batch", "Job"): workloads.JOB,
    ("batch", "CronJob"): workloads.CRON_JOB,
    ("", "Service"): core.SERVICE,
    ("", "Endpoints"): core.ENDPOINTS,
    ("", "Node"): core.NODE,
    ("", "Namespace"): core.NAMESPACE,
    ("", "ConfigMap"): core.CONFIG_MAP,
    ("", "Secret"): core.SECRET,
    ("", "ServiceAccount"): core.SERVICE_ACCOUNT,
    ("", "PersistentVolume"): core.PERSISTENT_VOLUME,
    ("", "PersistentVolumeClaim"): core.PERSISTENT_VOLUME_CLAIM,
    ("", "ResourceQuota"): core.RESOURCE_QUOTA,
    ("coordination.k8s.io", "Lease"): core.LEASE,
    ("", "Event"): events.CORE_EVENT,
    ("events.k8s.io", "Event"): events.EVENTS_API_EVENT,
    ("rbac.authorization.k8s.io", "RoleBinding"): rbac.ROLE_BINDING,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): rbac.CLUSTER_ROLE_BINDING,
    ("certificates.k8s.io", "CertificateSigningRequest"): certificates.CERTIFICATE_SIGNING_REQUEST,
    ("certificates.k8s.io", "ClusterTrustBundle"): certificates.CLUSTER_TRUST_BUNDLE,
    ("", "PodTemplate"): templates.POD_TEMPLATE,
    ("apps", "ControllerRevision"): templates.CONTROLLER_REVISION,
    ("", "ComponentStatus"): control_plane.COMPONENT_STATUS,
    ("apiregistration.k8s.io", "APIService"): control_plane.API_SERVICE,
    ("coordination.k8s.io", "LeaseCandidate"): control_plane.LEASE_CANDIDATE,
    ("internal.apiserver.k8s.io", "StorageVersion"): control_plane.STORAGE_VERSION,
    ("networking.k8s.io", "Ingress"): networking.INGRESS,
    ("networking.k8s.io", "IngressClass"): networking.INGRESS_CLASS,
    ("networking.k8s.io", "NetworkPolicy"): networking.NETWORK_POLICY,
    ("networking.k8s.io", "ServiceCIDR"): networking.SERVICE_CIDR,
    ("networking.k8s.io", "IPAddress"): networking.IP_ADDRESS,
    ("discovery.k8s.io", "EndpointSlice"): networking.ENDPOINT_SLICE,
    ("policy", "PodDisruptionBudget"): policy.POD_DISRUPTION_BUDGET,
    ("autoscaling", "HorizontalPodAutoscaler"): autoscaling.HORIZONTAL_POD_AUTOSCALER,
    ("scheduling.k8s.io", "PriorityClass"): scheduling.PRIORITY_CLASS,
    ("node.k8s.io", "RuntimeClass"): scheduling.RUNTIME_CLASS,
    ("storage.k8s.io", "StorageClass"): storage.STORAGE_CLASS,
    ("storage.k8s.io", "VolumeAttributesClass"): storage.VOLUME_ATTRIBUTES_CLASS,
    ("storage.k8s.io", "CSIDriver"): storage.CSI_DRIVER,
    ("storage.k8s.io", "CSINode"): storage.CSI_NODE,
    ("storage.k8s.io", "VolumeAttachment"): storage.VOLUME_ATTACHMENT,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): admission.VALIDATING_WEBHOOK_CONFIGURATION,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): admission.MUTATING_WEBHOOK_CONFIGURATION,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): admission.VALIDATING_ADMISSION_POLICY,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): admission.VALIDATING_ADMISSION_POLICY_BINDING,
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"): admission.MUTATING_ADMISSION_POLICY,
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"): admission.MUTATING_ADMISSION_POLICY_BINDING,
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): flowcontrol.FLOW_SCHEMA,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): flowcontrol.PRIORITY_LEVEL_CONFIGURATION,
    ("resource.k8s.io", "DeviceClass"): dra.DEVICE_CLASS,
    ("resource.k8s.io", "ResourceClaim"): dra.RESOURCE_CLAIM,
    ("resource.k8s.io", "ResourceClaimTemplate"): dra.RESOURCE_CLAIM_TEMPLATE,
    ("resource.k8s.io", "ResourceSlice"): dra.RESOURCE_SLICE,
}


_ROW_CONDITIONS: dict[tuple[str, str], RowConditions] = {("", "Pod"): pods.row_conditions}


def row_conditions_for(upstream_group: str, kind: str) -> RowConditions | None:
    return _ROW_CONDITIONS.get((upstream_group, kind))


def columns_for(upstream_group: str, kind: str) -> tuple[Column, ...] | None:
    """The kind's own columns, or None where the default table applies: kinds upstream has no printer for,
    and the few it registers with the default table although one exists (limit ranges, roles, cluster
    roles, CSI storage capacities)."""
    return _COLUMNS.get((upstream_group, kind))
