"""Server-side table columns of the built-in kinds, as upstream's API server defines them.

A `Table` lists every column, `priority: 1` ones included (kubectl shows those with `-o wide`), and each
cell is computed from the object in its upstream JSON form. Kinds without a column set of their own get
the default `Name` / `Created At` table from the caller.
"""

from __future__ import annotations

from svc.api.columns import certificates, core, events, pods, rbac, workloads
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
}


_ROW_CONDITIONS: dict[tuple[str, str], RowConditions] = {("", "Pod"): pods.row_conditions}


def row_conditions_for(upstream_group: str, kind: str) -> RowConditions | None:
    return _ROW_CONDITIONS.get((upstream_group, kind))


def columns_for(upstream_group: str, kind: str) -> tuple[Column, ...] | None:
    """The kind's own columns, or None where the default table applies (e.g. roles, cluster roles)."""
    return _COLUMNS.get((upstream_group, kind))
