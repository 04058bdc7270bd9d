"""RBAC, storage, scheduling, coordination, policy, autoscaling and networking kinds."""

from __future__ import annotations

from typing import Any

import pytest

from svc.api.brand import SVC
from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, INVALID, FORBIDDEN = "FieldValueRequired", "FieldValueInvalid", "FieldValueForbidden"
NOT_SUPPORTED = "FieldValueNotSupported"
RBAC = "rbac.authorization.k8s.io"
SERVED_RBAC = SVC.group(RBAC)
META = {"name": "x", "namespace": "default"}

ROLE = {"metadata": META, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
CLUSTER_ROLE = {"metadata": {"name": "x"}, "rules": [{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]}
BINDING = {
    "metadata": META,
    "roleRef": {"apiGroup": SERVED_RBAC, "kind": "Role", "name": "reader"},
    "subjects": [{"kind": "User", "name": "alice"}, {"kind": "ServiceAccount", "name": "robot"}],
}
CLUSTER_BINDING = {
    "metadata": {"name": "x"},
    "roleRef": {"apiGroup": SERVED_RBAC, "kind": "ClusterRole", "name": "view"},
    "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": "default"}],
}
STORAGE_CLASS = {"metadata": {"name": "fast"}, "provisioner": "example.com/disk", "parameters": {"type": "ssd"}}
CLAIM = {
    "metadata": META,
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}
PRIORITY_CLASS = {"metadata": {"name": "high"}, "value": 1000}
LEASE = {"metadata": META, "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}}
PDB = {"metadata": META, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}
HPA = {
    "metadata": META,
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 5,
    },
}
NETWORK_POLICY = {
    "metadata": META,
    "spec": {
        "podSelector": {"matchLabels": {"app": "web"}},
        "ingress": [{"from": [{"podSelector": {}}], "ports": [{"port": 80}]}],
        "policyTypes": ["Ingress"],
    },
}
INGRESS = {
    "metadata": META,
    "spec": {
        "ingressClassName": "nginx",
        "rules": [
            {
                "host": "*.example.com",
                "http": {
                    "paths": [
                        {
                            "path": "/api",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "api", "port": {"number": 80}}},
                        }
                    ]
                },
            }
        ],
        "tls": [{"hosts": ["*.example.com"], "secretName": "tls"}],
    },
}
P0 = "spec.rules[0].http.paths[0]"
ENDPOINTS = {
    "metadata": META,
    "subsets": [{"addresses": [{"ip": "10.1.2.3"}], "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}],
}
NODE = {
    "metadata": {"name": "node-1"},
    "spec": {"podCIDRs": ["10.244.1.0/24"], "taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]},
}

VALID = [
    (RBAC, "Role", ROLE),
    (RBAC, "ClusterRole", CLUSTER_ROLE),
    (RBAC, "RoleBinding", BINDING),
    (RBAC, "ClusterRoleBinding", CLUSTER_BINDING),
    ("storage.k8s.io", "StorageClass", STORAGE_CLASS),
    ("", "PersistentVolumeClaim", CLAIM),
    ("scheduling.k8s.io", "PriorityClass", PRIORITY_CLASS),
    ("coordination.k8s.io", "Lease", LEASE),
    ("policy", "PodDisruptionBudget", PDB),
    ("autoscaling", "HorizontalPodAutoscaler", HPA),
    ("networking.k8s.io", "NetworkPolicy", NETWORK_POLICY),
    ("networking.k8s.io", "Ingress", INGRESS),
    ("", "Endpoints", ENDPOINTS),
    ("", "Node", NODE),
]


@pytest.mark.parametrize(("group", "kind", "obj"), VALID, ids=[case[1] for case in VALID])
def test_valid_object_passes(group: str, kind: str, obj: dict[str, Any]) -> None:
    assert causes(group, kind, obj) == []


INVALID_OBJECTS = [
    (
        "endpoints subset without addresses",
        "",
        "Endpoints",
        with_path(ENDPOINTS, "subsets.0.addresses", []),
        [("subsets[0]", REQUIRED, "must specify `addresses` or `notReadyAddresses`")],
    ),
    (
        "endpoints address on loopback",
        "",
        "Endpoints",
        with_path(ENDPOINTS, "subsets.0.addresses.0.ip", "127.0.0.1"),
        [("subsets[0].addresses[0].ip", INVALID, "may not be in the loopback range (127.0.0.0/8, ::1/128)")],
    ),
    (
        "endpoints address with leading zeros",
        "",
        "Endpoints",
        with_path(ENDPOINTS, "subsets.0.addresses.0.ip", "010.1.2.3"),
        [("subsets[0].addresses[0].ip", INVALID, 'Invalid value: "010.1.2.3": must not have leading 0s')],
    ),
    (
        "endpoints address that is not an IP",
        "",
        "Endpoints",
        with_path(ENDPOINTS, "subsets.0.addresses.0.ip", "db.local"),
        [
            ("subsets[0].addresses[0].ip", INVALID, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"),
            ("subsets[0].addresses[0].ip", INVALID, "must be a valid IP address"),
        ],
    ),
    (
        "endpoints port of zero",
        "",
        "Endpoints",
        with_path(ENDPOINTS, "subsets.0.ports.0.port", 0),
        [("subsets[0].ports[0].port", INVALID, "Invalid value: 0: must be between 1 and 65535, inclusive")],
    ),
    (
        "node with the same taint twice",
        "",
        "Node",
        with_path(NODE, "spec.taints.1", {"key": "dedicated", "value": "web", "effect": "NoSchedule"}),
        [("metadata.taints[1]", "FieldValueDuplicate", "taints must be unique by key and effect pair")],
    ),
    (
        "node taint without an effect",
        "",
        "Node",
        with_path(NODE, "spec.taints.0.effect", ...),
        [("metadata.taints[0].effect", REQUIRED, "Required value")],
    ),
    (
        "node pod CIDR with host bits",
        "",
        "Node",
        with_path(NODE, "spec.podCIDRs", ["10.244.1.5/24"]),
        [("spec.podCIDRs[0]", INVALID, "must not have bits set beyond the prefix length")],
    ),
    (
        "ingress with neither rules nor a default backend",
        "networking.k8s.io",
        "Ingress",
        with_path(INGRESS, "spec", {}),
        [("spec", INVALID, "Invalid value: null: either `defaultBackend` or `rules` must be specified")],
    ),
    (
        "ingress host that is an IP address",
        "networking.k8s.io",
        "Ingress",
        with_path(INGRESS, "spec.rules.0.host", "10.0.0.1"),
        [("spec.rules[0].host", INVALID, "must be a DNS name, not an IP address")],
    ),
    (
        "ingress path without a type",
        "networking.k8s.io",
        "Ingress",
        with_path(INGRESS, "spec.rules.0.http.paths.0.pathType", ...),
        [(f"{P0}.pathType", REQUIRED, "pathType must be specified")],
    ),
    (
        "ingress prefix path that is relative",
        "networking.k8s.io",
        "Ingress",
        with_path(INGRESS, "spec.rules.0.http.paths.0.path", "api"),
        [(f"{P0}.path", INVALID, 'Invalid value: "api": must be an absolute path')],
    ),
    (
        "ingress backend without a port",
        "networking.k8s.io",
        "Ingress",
        with_path(INGRESS, "spec.rules.0.http.paths.0.backend.service.port", {}),
        [(f"{P0}.backend", REQUIRED, "port name or number is required")],
    ),
    (
        "ingress with an unknown path type",
        "networking.k8s.io",
        "Ingress",
        with_path(INGRESS, "spec.rules.0.http.paths.0.pathType", "Regex"),
        [(f"{P0}.pathType", NOT_SUPPORTED, 'supported values: "Exact", "ImplementationSpecific", "Prefix"')],
    ),
    (
        "role rule without verbs",
        RBAC,
        "Role",
        with_path(ROLE, "rules.0.verbs", []),
        [("rules[0].verbs", REQUIRED, "verbs must contain at least one value")],
    ),
    (
        "role rule without resources",
        RBAC,
        "Role",
        with_path(ROLE, "rules.0.resources", ...),
        [("rules[0].resources", REQUIRED, "resource rules must supply at least one resource")],
    ),
    (
        "namespaced role with non-resource URLs",
        RBAC,
        "Role",
        with_path(ROLE, "rules.0", {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}),
        [("rules[0].nonResourceURLs", INVALID, "namespaced rules cannot apply to non-resource URLs")],
    ),
    (
        "cluster role rule of resources and non-resource URLs",
        RBAC,
        "ClusterRole",
        with_path(CLUSTER_ROLE, "rules.0.resources", ["pods"]),
        [("rules[0].nonResourceURLs", INVALID, "rules cannot apply to both regular resources and non-resource URLs")],
    ),
    (
        "cluster role non-resource rule without verbs",
        RBAC,
        "ClusterRole",
        with_path(CLUSTER_ROLE, "rules.0.verbs", []),
        [("rules[0].verbs", REQUIRED, "verbs must contain at least one value")],
    ),
    (
        "cluster role aggregation without selectors",
        RBAC,
        "ClusterRole",
        with_path(CLUSTER_ROLE, "aggregationRule", {"clusterRoleSelectors": []}),
        [
            (
                "aggregationRule.clusterRoleSelectors",
                REQUIRED,
                "at least one clusterRoleSelector required if aggregationRule is non-nil",
            )
        ],
    ),
    (
        "binding to a role of another group",
        RBAC,
        "RoleBinding",
        with_path(BINDING, "roleRef.apiGroup", "example.com"),
        [("roleRef.apiGroup", NOT_SUPPORTED, f'supported values: "{SERVED_RBAC}"')],
    ),
    (
        "binding to an unknown kind",
        RBAC,
        "RoleBinding",
        with_path(BINDING, "roleRef.kind", "Policy"),
        [("roleRef.kind", NOT_SUPPORTED, 'supported values: "Role", "ClusterRole"')],
    ),
    (
        "cluster binding to a namespaced role",
        RBAC,
        "ClusterRoleBinding",
        with_path(CLUSTER_BINDING, "roleRef.kind", "Role"),
        [("roleRef.kind", NOT_SUPPORTED, 'supported values: "ClusterRole"')],
    ),
    (
        "cluster binding of a service account without a namespace",
        RBAC,
        "ClusterRoleBinding",
        with_path(CLUSTER_BINDING, "subjects.0.namespace", ...),
        [("subjects[0].namespace", REQUIRED, "Required value")],
    ),
    (
        "subject of an unknown kind",
        RBAC,
        "RoleBinding",
        with_path(BINDING, "subjects.0.kind", "Robot"),
        [("subjects[0].kind", NOT_SUPPORTED, 'supported values: "ServiceAccount", "User", "Group"')],
    ),
    (
        "storage class without a provisioner",
        "storage.k8s.io",
        "StorageClass",
        with_path(STORAGE_CLASS, "provisioner", ...),
        [("provisioner", REQUIRED, "Required value")],
    ),
    (
        "storage class with an unknown reclaim policy",
        "storage.k8s.io",
        "StorageClass",
        with_path(STORAGE_CLASS, "reclaimPolicy", "Recycle"),
        [("reclaimPolicy", NOT_SUPPORTED, 'supported values: "Delete", "Retain"')],
    ),
    (
        "claim without access modes",
        "",
        "PersistentVolumeClaim",
        with_path(CLAIM, "spec.accessModes", []),
        [("spec.accessModes", REQUIRED, "at least 1 access mode is required")],
    ),
    (
        "claim without a storage request",
        "",
        "PersistentVolumeClaim",
        with_path(CLAIM, "spec.resources", {}),
        [("spec.resources[storage]", REQUIRED, "Required value")],
    ),
    (
        "claim for zero bytes",
        "",
        "PersistentVolumeClaim",
        with_path(CLAIM, "spec.resources.requests.storage", "0"),
        [("spec.resources[storage]", INVALID, "must be greater than zero")],
    ),
    (
        "claim with an unknown access mode",
        "",
        "PersistentVolumeClaim",
        with_path(CLAIM, "spec.accessModes", ["ReadSometimes"]),
        [("spec.accessModes", NOT_SUPPORTED, '"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"')],
    ),
    (
        "user priority above the limit",
        "scheduling.k8s.io",
        "PriorityClass",
        with_path(PRIORITY_CLASS, "value", 2_000_000_000),
        [("value", FORBIDDEN, "maximum allowed value of a user defined priority is 1000000000")],
    ),
    (
        "priority class in the system namespace of names",
        "scheduling.k8s.io",
        "PriorityClass",
        with_path(PRIORITY_CLASS, "metadata.name", "system-special"),
        [("metadata.name", FORBIDDEN, "priority class names with 'system-' prefix are reserved for system use only")],
    ),
    (
        "lease of zero seconds",
        "coordination.k8s.io",
        "Lease",
        with_path(LEASE, "spec.leaseDurationSeconds", 0),
        [("spec.leaseDurationSeconds", INVALID, "must be greater than 0")],
    ),
    (
        "lease with negative transitions",
        "coordination.k8s.io",
        "Lease",
        with_path(LEASE, "spec.leaseTransitions", -1),
        [("spec.leaseTransitions", INVALID, "must be greater than or equal to 0")],
    ),
    (
        "lease with an unknown strategy (upstream names the child twice)",
        "coordination.k8s.io",
        "Lease",
        with_path(LEASE, "spec.strategy", "NewestEmulationVersion"),
        [("spec.strategy.strategy", NOT_SUPPORTED, 'supported values: "OldestEmulationVersion"')],
    ),
    (
        "lease with a preferred holder but no strategy",
        "coordination.k8s.io",
        "Lease",
        with_path(LEASE, "spec.preferredHolder", "b"),
        [("spec.preferredHolder", FORBIDDEN, "may only be specified if `strategy` is defined")],
    ),
    (
        "budget with both bounds",
        "policy",
        "PodDisruptionBudget",
        with_path(PDB, "spec.maxUnavailable", 1),
        [("spec", INVALID, "minAvailable and maxUnavailable cannot be both set")],
    ),
    (
        "budget above 100%",
        "policy",
        "PodDisruptionBudget",
        with_path(PDB, "spec.minAvailable", "150%"),
        [("spec.minAvailable", INVALID, "must not be greater than 100%")],
    ),
    (
        "autoscaler with max below min",
        "autoscaling",
        "HorizontalPodAutoscaler",
        with_path(HPA, "spec.maxReplicas", 0),
        [
            ("spec.maxReplicas", INVALID, "must be greater than 0"),
            ("spec.maxReplicas", INVALID, "must be greater than or equal to `minReplicas`"),
        ],
    ),
    (
        "autoscaler without a target name",
        "autoscaling",
        "HorizontalPodAutoscaler",
        with_path(HPA, "spec.scaleTargetRef.name", ...),
        [("spec.scaleTargetRef.name", REQUIRED, "Required value")],
    ),
    (
        "network policy peer with nothing",
        "networking.k8s.io",
        "NetworkPolicy",
        with_path(NETWORK_POLICY, "spec.ingress.0.from.0", {}),
        [("spec.ingress[0].from[0]", REQUIRED, "must specify a peer")],
    ),
    (
        "network policy port out of range",
        "networking.k8s.io",
        "NetworkPolicy",
        with_path(NETWORK_POLICY, "spec.ingress.0.ports.0.port", 70000),
        [("spec.ingress[0].ports[0].port", INVALID, "must be between 1 and 65535, inclusive")],
    ),
    (
        "network policy with an unknown policy type",
        "networking.k8s.io",
        "NetworkPolicy",
        with_path(NETWORK_POLICY, "spec.policyTypes", ["Sideways"]),
        [("spec.policyTypes[0]", NOT_SUPPORTED, 'supported values: "Ingress", "Egress"')],
    ),
]


@pytest.mark.parametrize(
    ("group", "kind", "obj", "expected"), [c[1:] for c in INVALID_OBJECTS], ids=[c[0] for c in INVALID_OBJECTS]
)
def test_invalid_object(group: str, kind: str, obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(group, kind, obj), expected)


def test_binding_role_ref_cannot_change() -> None:
    changed = with_path(BINDING, "roleRef.name", "writer")
    expected = [
        (
            "roleRef",
            INVALID,
            f'Invalid value: {{"apiGroup":"{SERVED_RBAC}","kind":"Role","name":"writer"}}: cannot change roleRef',
        )
    ]
    assert_causes(causes(RBAC, "RoleBinding", changed, old=BINDING), expected)


def test_storage_class_parameters_cannot_change() -> None:
    changed = with_path(STORAGE_CLASS, "parameters.type", "hdd")
    expected = [("parameters", FORBIDDEN, "updates to parameters are forbidden.")]
    assert_causes(causes("storage.k8s.io", "StorageClass", changed, old=STORAGE_CLASS), expected)


def test_pending_claim_spec_is_immutable() -> None:
    changed = with_path(CLAIM, "spec.accessModes", ["ReadWriteMany"])
    expected = [("spec", FORBIDDEN, "spec is immutable after creation except resources.requests")]
    assert_causes(causes("", "PersistentVolumeClaim", changed, old=CLAIM), expected)


def test_node_pod_cidrs_cannot_change() -> None:
    changed = with_path(NODE, "spec.podCIDRs", ["10.244.2.0/24"])
    expected = [("spec.podCIDRs", FORBIDDEN, 'node updates may not change podCIDR except from "" to valid')]
    assert_causes(causes("", "Node", changed, old=NODE), expected)


def test_priority_value_cannot_change() -> None:
    changed = with_path(PRIORITY_CLASS, "value", 2000)
    expected = [("value", FORBIDDEN, "may not be changed in an update.")]
    assert_causes(causes("scheduling.k8s.io", "PriorityClass", changed, old=PRIORITY_CLASS), expected)


def test_lease_strategy_may_be_known_or_a_qualified_name() -> None:
    for strategy in ("OldestEmulationVersion", "example.com/newest"):
        lease = with_path(with_path(LEASE, "spec.strategy", strategy), "spec.preferredHolder", "b")
        assert causes("coordination.k8s.io", "Lease", lease) == []
