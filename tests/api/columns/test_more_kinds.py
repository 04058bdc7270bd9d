"""One representative object per kind: the column headers (name, type, format, priority) and the cells,
as upstream's printers write them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from svc.api.columns import columns_for
from tests.api.columns.support import ago, cells, headers

AGE = ("Age", "string", "", 0)
NAME = ("Name", "string", "name", 0)


@dataclass(frozen=True)
class Case:
    group: str
    kind: str
    obj: dict[str, Any]
    headers: list[tuple[str, str, str, int]]
    cells: list[Any]


def _meta(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "creationTimestamp": ago(hours=5), **extra}


CASES = [
    Case(
        "networking.k8s.io",
        "Ingress",
        {
            "metadata": _meta("web"),
            "spec": {
                "ingressClassName": "nginx",
                "rules": [{"host": "a.example"}, {}, {"host": "b.example"}, {"host": "c.example"}, {"host": "d"}],
                "tls": [{"hosts": ["a.example"]}],
            },
            "status": {
                "loadBalancer": {"ingress": [{"ip": "10.0.0.9"}, {"hostname": "lb.example"}, {"ip": "10.0.0.9"}]}
            },
        },
        [
            NAME,
            ("Class", "string", "", 0),
            ("Hosts", "string", "", 0),
            ("Address", "string", "", 0),
            ("Ports", "string", "", 0),
            AGE,
        ],
        ["web", "nginx", "a.example,b.example,c.example + 2 more...", "10.0.0.9,lb.example", "80, 443", "5h"],
    ),
    Case(
        "networking.k8s.io",
        "IngressClass",
        {
            "metadata": _meta("nginx"),
            "spec": {
                "controller": "k8s.io/ingress-nginx",
                "parameters": {"apiGroup": "k8s.example.com", "kind": "Params", "name": "p"},
            },
        },
        [NAME, ("Controller", "string", "", 0), ("Parameters", "string", "", 0), AGE],
        ["nginx", "k8s.io/ingress-nginx", "Params.k8s.example.com/p", "5h"],
    ),
    Case(
        "networking.k8s.io",
        "NetworkPolicy",
        {"metadata": _meta("deny"), "spec": {"podSelector": {"matchLabels": {"role": "db"}}}},
        [NAME, ("Pod-Selector", "string", "", 0), AGE],
        ["deny", "role=db", "5h"],
    ),
    Case(
        "discovery.k8s.io",
        "EndpointSlice",
        {
            "metadata": _meta("web-abc"),
            "addressType": "IPv4",
            "ports": [{"port": 80}, {"name": "metrics"}, {}, {"port": 9090}],
            "endpoints": [{"addresses": ["10.1.0.1"]}, {"addresses": ["10.1.0.2", "10.1.0.3"]}],
        },
        [NAME, ("AddressType", "string", "", 0), ("Ports", "string", "", 0), ("Endpoints", "string", "", 0), AGE],
        ["web-abc", "IPv4", "80,metrics,* + 1 more...", "10.1.0.1,10.1.0.2,10.1.0.3", "5h"],
    ),
    Case(
        "networking.k8s.io",
        "ServiceCIDR",
        {"metadata": _meta("kubernetes"), "spec": {"cidrs": ["10.96.0.0/12", "fd00::/108"]}},
        [NAME, ("CIDRs", "string", "", 0), AGE],
        ["kubernetes", "10.96.0.0/12,fd00::/108", "5h"],
    ),
    Case(
        "networking.k8s.io",
        "IPAddress",
        {
            "metadata": _meta("10.96.0.1"),
            "spec": {"parentRef": {"group": "", "resource": "services", "namespace": "default", "name": "kubernetes"}},
        },
        [NAME, ("ParentRef", "string", "", 0)],
        ["10.96.0.1", "services/default/kubernetes"],
    ),
    Case(
        "policy",
        "PodDisruptionBudget",
        {"metadata": _meta("db"), "spec": {"minAvailable": "50%"}, "status": {"disruptionsAllowed": 1}},
        [
            NAME,
            ("Min Available", "string", "", 0),
            ("Max Unavailable", "string", "", 0),
            ("Allowed Disruptions", "integer", "", 0),
            AGE,
        ],
        ["db", "50%", "N/A", 1, "5h"],
    ),
    Case(
        "autoscaling",
        "HorizontalPodAutoscaler",
        {
            "metadata": _meta("web"),
            "spec": {
                "scaleTargetRef": {"kind": "Deployment", "name": "web"},
                "minReplicas": 2,
                "maxReplicas": 10,
                "metrics": [
                    {
                        "type": "Resource",
                        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
                    },
                    {
                        "type": "Pods",
                        "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "1k"}},
                    },
                    {
                        "type": "External",
                        "external": {"metric": {"name": "q"}, "target": {"type": "Value", "value": "30"}},
                    },
                ],
            },
            "status": {
                "currentReplicas": 3,
                "currentMetrics": [
                    {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 41}}}
                ],
            },
        },
        [
            NAME,
            ("Reference", "string", "", 0),
            ("Targets", "string", "", 0),
            ("MinPods", "string", "", 0),
            ("MaxPods", "string", "", 0),
            ("Replicas", "string", "", 0),
            AGE,
        ],
        ["web", "Deployment/web", "cpu: 41%/80%, <unknown>/1k + 1 more...", "2", 10, 3, "5h"],
    ),
    Case(
        "storage.k8s.io",
        "StorageClass",
        {
            "metadata": _meta("standard", annotations={"storageclass.kubernetes.io/is-default-class": "true"}),
            "provisioner": "rancher.io/local-path",
            "volumeBindingMode": "WaitForFirstConsumer",
        },
        [
            NAME,
            ("Provisioner", "string", "", 0),
            ("ReclaimPolicy", "string", "", 0),
            ("VolumeBindingMode", "string", "", 0),
            ("AllowVolumeExpansion", "string", "", 0),
            AGE,
        ],
        ["standard (default)", "rancher.io/local-path", "Delete", "WaitForFirstConsumer", False, "5h"],
    ),
    Case(
        "storage.k8s.io",
        "VolumeAttributesClass",
        {"metadata": _meta("gold"), "driverName": "pd.csi.storage.gke.io"},
        [NAME, ("DriverName", "string", "", 0), AGE],
        ["gold", "pd.csi.storage.gke.io", "5h"],
    ),
    Case(
        "storage.k8s.io",
        "CSIDriver",
        {
            "metadata": _meta("hostpath.csi.k8s.io"),
            "spec": {
                "podInfoOnMount": True,
                "tokenRequests": [{"audience": "vault"}, {"audience": "gcp"}],
                "volumeLifecycleModes": ["Persistent", "Ephemeral"],
            },
        },
        [
            NAME,
            ("AttachRequired", "boolean", "", 0),
            ("PodInfoOnMount", "boolean", "", 0),
            ("StorageCapacity", "boolean", "", 0),
            ("TokenRequests", "string", "", 0),
            ("RequiresRepublish", "boolean", "", 0),
            ("Modes", "string", "", 0),
            AGE,
        ],
        ["hostpath.csi.k8s.io", True, True, False, "vault,gcp", False, "Persistent,Ephemeral", "5h"],
    ),
    Case(
        "storage.k8s.io",
        "CSINode",
        {"metadata": _meta("node-1"), "spec": {"drivers": [{"name": "a"}, {"name": "b"}]}},
        [NAME, ("Drivers", "integer", "", 0), AGE],
        ["node-1", 2, "5h"],
    ),
    Case(
        "storage.k8s.io",
        "VolumeAttachment",
        {
            "metadata": _meta("csi-123"),
            "spec": {
                "attacher": "hostpath.csi.k8s.io",
                "nodeName": "node-1",
                "source": {"persistentVolumeName": "pv-1"},
            },
            "status": {"attached": True},
        },
        [
            NAME,
            ("Attacher", "string", "name", 0),
            ("PV", "string", "", 0),
            ("Node", "string", "", 0),
            ("Attached", "boolean", "", 0),
            AGE,
        ],
        ["csi-123", "hostpath.csi.k8s.io", "pv-1", "node-1", True, "5h"],
    ),
    Case(
        "scheduling.k8s.io",
        "PriorityClass",
        {"metadata": _meta("high"), "value": 1000000, "globalDefault": True},
        [
            NAME,
            ("Value", "integer", "", 0),
            ("Global-Default", "boolean", "", 0),
            AGE,
            ("PreemptionPolicy", "string", "", 0),
        ],
        ["high", 1000000, True, "5h", ""],
    ),
    Case(
        "node.k8s.io",
        "RuntimeClass",
        {"metadata": _meta("gvisor"), "handler": "runsc"},
        [NAME, ("Handler", "string", "", 0), AGE],
        ["gvisor", "runsc", "5h"],
    ),
    Case(
        "apps",
        "ControllerRevision",
        {
            "metadata": _meta(
                "web-7d9f",
                ownerReferences=[
                    {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "u", "controller": True}
                ],
            ),
            "revision": 3,
        },
        [NAME, ("Controller", "string", "", 0), ("Revision", "string", "", 0), AGE],
        ["web-7d9f", "statefulset.apps/web", 3, "5h"],
    ),
    Case(
        "",
        "PodTemplate",
        {
            "metadata": _meta("tpl"),
            "template": {
                "metadata": {"labels": {"b": "2", "a": "1"}},
                "spec": {"containers": [{"name": "app", "image": "nginx"}, {"name": "log", "image": "busybox"}]},
            },
        },
        [NAME, ("Containers", "string", "", 0), ("Images", "string", "", 0), ("Pod Labels", "string", "", 0)],
        ["tpl", "app,log", "nginx,busybox", "a=1,b=2"],
    ),
    Case(
        "",
        "ComponentStatus",
        {"metadata": {"name": "etcd-0"}, "conditions": [{"type": "Healthy", "status": "True", "message": "ok"}]},
        [NAME, ("Status", "string", "", 0), ("Message", "string", "", 0), ("Error", "string", "", 0)],
        ["etcd-0", "Healthy", "ok", ""],
    ),
    Case(
        "apiregistration.k8s.io",
        "APIService",
        {
            "metadata": _meta("v1beta1.metrics.k8s.io"),
            "spec": {"service": {"namespace": "kube-system", "name": "metrics-server"}},
            "status": {"conditions": [{"type": "Available", "status": "False", "reason": "MissingEndpoints"}]},
        },
        [NAME, ("Service", "string", "", 0), ("Available", "string", "", 0), AGE],
        ["v1beta1.metrics.k8s.io", "kube-system/metrics-server", "False (MissingEndpoints)", "5h"],
    ),
    Case(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        {"metadata": _meta("checks"), "webhooks": [{"name": "a.example.com"}, {"name": "b.example.com"}]},
        [NAME, ("Webhooks", "integer", "", 0), AGE],
        ["checks", 2, "5h"],
    ),
    Case(
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        {"metadata": _meta("inject")},
        [NAME, ("Webhooks", "integer", "", 0), AGE],
        ["inject", 0, "5h"],
    ),
    Case(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        {
            "metadata": _meta("replicas"),
            "spec": {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}, "validations": [{"expression": "true"}]},
        },
        [NAME, ("Validations", "integer", "", 0), ("ParamKind", "string", "", 0), AGE],
        ["replicas", 1, "v1/ConfigMap", "5h"],
    ),
    Case(
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicy",
        {"metadata": _meta("labels"), "spec": {"mutations": [{}, {}]}},
        [NAME, ("Mutations", "integer", "", 0), ("ParamKind", "string", "", 0), AGE],
        ["labels", 2, "<unset>", "5h"],
    ),
    Case(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        {"metadata": _meta("replicas-binding"), "spec": {"policyName": "replicas", "paramRef": {"name": "limits"}}},
        [NAME, ("PolicyName", "string", "", 0), ("ParamRef", "string", "", 0), AGE],
        ["replicas-binding", "replicas", "*/limits", "5h"],
    ),
    Case(
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
        {
            "metadata": _meta("labels-binding"),
            "spec": {
                "policyName": "labels",
                "paramRef": {
                    "selector": {
                        "matchLabels": {"tier": "a"},
                        "matchExpressions": [{"key": "env", "operator": "In", "values": ["x", "y"]}],
                    }
                },
            },
        },
        [NAME, ("PolicyName", "string", "", 0), ("ParamRef", "string", "", 0), AGE],
        [
            "labels-binding",
            "labels",
            "&LabelSelector{MatchLabels:map[string]string{tier: a,},MatchExpressions:[]LabelSelectorRequirement"
            "{LabelSelectorRequirement{Key:env,Operator:In,Values:[x y],},},}",
            "5h",
        ],
    ),
    Case(
        "flowcontrol.apiserver.k8s.io",
        "FlowSchema",
        {
            "metadata": _meta("system-leader-election"),
            "spec": {
                "priorityLevelConfiguration": {"name": "leader-election"},
                "matchingPrecedence": 100,
                "distinguisherMethod": {"type": "ByUser"},
            },
            "status": {"conditions": [{"type": "Dangling", "status": "False"}]},
        },
        [
            NAME,
            ("PriorityLevel", "string", "", 0),
            ("MatchingPrecedence", "string", "", 0),
            ("DistinguisherMethod", "string", "", 0),
            AGE,
            ("MissingPL", "string", "", 0),
        ],
        ["system-leader-election", "leader-election", 100, "ByUser", "5h", "False"],
    ),
    Case(
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        {
            "metadata": _meta("workload-low"),
            "spec": {
                "type": "Limited",
                "limited": {
                    "nominalConcurrencyShares": 100,
                    "limitResponse": {
                        "type": "Queue",
                        "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50},
                    },
                },
            },
        },
        [
            NAME,
            ("Type", "string", "", 0),
            ("NominalConcurrencyShares", "string", "", 0),
            ("Queues", "string", "", 0),
            ("HandSize", "string", "", 0),
            ("QueueLengthLimit", "string", "", 0),
            AGE,
        ],
        ["workload-low", "Limited", 100, 128, 6, 50, "5h"],
    ),
    Case(
        "resource.k8s.io",
        "ResourceClaim",
        {"metadata": _meta("gpu"), "status": {"allocation": {"devices": {}}, "reservedFor": [{"name": "pod-1"}]}},
        [NAME, ("State", "string", "", 0), AGE],
        ["gpu", "allocated,reserved", "5h"],
    ),
    Case(
        "resource.k8s.io",
        "ResourceSlice",
        {
            "metadata": _meta("node-1-gpu"),
            "spec": {"nodeName": "node-1", "driver": "gpu.example.com", "pool": {"name": "node-1", "generation": 1}},
        },
        [NAME, ("Node", "string", "", 0), ("Driver", "string", "", 0), ("Pool", "string", "", 0), AGE],
        ["node-1-gpu", "node-1", "gpu.example.com", "node-1", "5h"],
    ),
    Case("resource.k8s.io", "DeviceClass", {"metadata": _meta("gpu")}, [NAME, AGE], ["gpu", "5h"]),
    Case("resource.k8s.io", "ResourceClaimTemplate", {"metadata": _meta("gpu")}, [NAME, AGE], ["gpu", "5h"]),
    Case(
        "coordination.k8s.io",
        "LeaseCandidate",
        {
            "metadata": _meta("kcm-1"),
            "spec": {"leaseName": "kube-controller-manager", "binaryVersion": "1.36.0", "emulationVersion": "1.36"},
        },
        [
            NAME,
            ("LeaseName", "string", "", 0),
            ("BinaryVersion", "string", "", 0),
            ("EmulationVersion", "string", "", 0),
            AGE,
        ],
        ["kcm-1", "kube-controller-manager", "1.36.0", "1.36", "5h"],
    ),
    Case(
        "internal.apiserver.k8s.io",
        "StorageVersion",
        {
            "metadata": _meta("apps.deployments"),
            "status": {
                "commonEncodingVersion": "apps/v1",
                "storageVersions": [
                    {"apiServerID": f"kas-{n}", "encodingVersion": "apps/v1", "decodableVersions": ["apps/v1"]}
                    for n in range(4)
                ],
            },
        },
        [NAME, ("CommonEncodingVersion", "string", "", 0), ("StorageVersions", "string", "", 0), AGE],
        ["apps.deployments", "apps/v1", "kas-0=apps/v1,kas-1=apps/v1,kas-2=apps/v1 + 1 more...", "5h"],
    ),
    Case(
        "certificates.k8s.io",
        "CertificateSigningRequest",
        {
            "metadata": _meta("alice"),
            "spec": {"signerName": "example.com/signer", "username": "alice", "expirationSeconds": 3600},
            "status": {"conditions": [{"type": "Approved", "status": "True"}], "certificate": "Y2VydA=="},
        },
        [
            NAME,
            AGE,
            ("SignerName", "string", "", 0),
            ("Requestor", "string", "", 0),
            ("RequestedDuration", "string", "", 0),
            ("Condition", "string", "", 0),
        ],
        ["alice", "5h", "example.com/signer", "alice", "60m", "Approved,Issued"],
    ),
    Case(
        "certificates.k8s.io",
        "ClusterTrustBundle",
        {"metadata": _meta("example.com:signer:abc"), "spec": {"signerName": "example.com/signer"}},
        [NAME, ("SignerName", "string", "", 0)],
        ["example.com:signer:abc", "example.com/signer"],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{case.group or 'core'}/{case.kind}" for case in CASES])
def test_headers_and_cells(case: Case) -> None:
    columns = columns_for(case.group, case.kind)
    assert columns is not None
    assert headers(columns) == case.headers
    assert cells(columns, case.obj) == case.cells


@pytest.mark.parametrize(
    ("group", "kind"),
    [
        ("", "LimitRange"),
        ("rbac.authorization.k8s.io", "Role"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("storage.k8s.io", "CSIStorageCapacity"),
    ],
)
def test_kinds_upstream_serves_with_the_default_table(group: str, kind: str) -> None:
    assert columns_for(group, kind) is None


def _cell(group: str, kind: str, obj: dict[str, Any], column: str) -> Any:
    columns = columns_for(group, kind)
    assert columns is not None
    return dict(zip([c.name for c in columns], cells(columns, obj), strict=True))[column]


@pytest.mark.parametrize(
    ("group", "kind", "obj", "column", "expected"),
    [
        ("networking.k8s.io", "Ingress", {"spec": {"rules": [{}]}}, "Hosts", "*"),
        ("networking.k8s.io", "Ingress", {"spec": {}}, "Class", "<none>"),
        ("networking.k8s.io", "Ingress", {"spec": {}}, "Ports", "80"),
        ("networking.k8s.io", "IngressClass", {"spec": {"controller": "x"}}, "Parameters", "<none>"),
        (
            "networking.k8s.io",
            "IngressClass",
            {"spec": {"parameters": {"kind": "P", "name": "n"}}},
            "Parameters",
            "P/n",
        ),
        ("networking.k8s.io", "NetworkPolicy", {"spec": {"podSelector": {}}}, "Pod-Selector", "<none>"),
        ("discovery.k8s.io", "EndpointSlice", {"addressType": "IPv4"}, "Endpoints", "<unset>"),
        ("networking.k8s.io", "IPAddress", {"spec": {}}, "ParentRef", "<none>"),
        ("policy", "PodDisruptionBudget", {"spec": {"maxUnavailable": 1}}, "Max Unavailable", "1"),
        ("policy", "PodDisruptionBudget", {"spec": {"maxUnavailable": 1}}, "Min Available", "N/A"),
        ("autoscaling", "HorizontalPodAutoscaler", {"spec": {"maxReplicas": 3}}, "Targets", "<none>"),
        ("autoscaling", "HorizontalPodAutoscaler", {"spec": {"maxReplicas": 3}}, "MinPods", "<unset>"),
        (
            "autoscaling",
            "HorizontalPodAutoscaler",
            {"spec": {"targetCPUUtilizationPercentage": 50}, "status": {"currentCPUUtilizationPercentage": 12}},
            "Targets",
            "cpu: 12%/50%",
        ),
        (
            "autoscaling",
            "HorizontalPodAutoscaler",
            {"spec": {"targetCPUUtilizationPercentage": 50}},
            "Targets",
            "cpu: <unknown>/50%",
        ),
        (
            "autoscaling",
            "HorizontalPodAutoscaler",
            {
                "spec": {"metrics": [{"type": "Object", "object": {"target": {"averageValue": "2"}}}]},
                "status": {"currentMetrics": [{"type": "Object", "object": {"current": {"averageValue": "1500m"}}}]},
            },
            "Targets",
            "1500m/2 (avg)",
        ),
        (
            "autoscaling",
            "HorizontalPodAutoscaler",
            {
                "spec": {
                    "metrics": [
                        {
                            "type": "ContainerResource",
                            "containerResource": {"name": "memory", "target": {"averageValue": "1Gi"}},
                        }
                    ]
                }
            },
            "Targets",
            "memory: <unknown>/1Gi",
        ),
        (
            "autoscaling",
            "HorizontalPodAutoscaler",
            {"spec": {"metrics": [{"type": "Mystery"}]}},
            "Targets",
            "<unknown type>",
        ),
        ("storage.k8s.io", "CSIDriver", {"spec": {}}, "TokenRequests", "<unset>"),
        ("storage.k8s.io", "CSIDriver", {"spec": {}}, "Modes", "<none>"),
        ("storage.k8s.io", "CSIDriver", {"spec": {"attachRequired": False}}, "AttachRequired", False),
        (
            "storage.k8s.io",
            "StorageClass",
            {"reclaimPolicy": "Retain", "allowVolumeExpansion": True},
            "AllowVolumeExpansion",
            True,
        ),
        (
            "storage.k8s.io",
            "VolumeAttributesClass",
            {
                "metadata": {
                    "name": "v",
                    "annotations": {"volumeattributesclass.alpha.kubernetes.io/is-default-class": "true"},
                }
            },
            "Name",
            "v (default)",
        ),
        (
            "apps",
            "ControllerRevision",
            {"metadata": {"ownerReferences": [{"kind": "X", "name": "y"}]}},
            "Controller",
            "<none>",
        ),
        (
            "apps",
            "ControllerRevision",
            {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "controller": True}]}},
            "Controller",
            "pod/p",
        ),
        (
            "",
            "ComponentStatus",
            {"conditions": [{"type": "Healthy", "status": "False", "error": "refused"}]},
            "Error",
            "refused",
        ),
        ("", "ComponentStatus", {}, "Status", "Unknown"),
        ("apiregistration.k8s.io", "APIService", {"spec": {}}, "Service", "Local"),
        ("apiregistration.k8s.io", "APIService", {"spec": {}}, "Available", "Unknown"),
        (
            "admissionregistration.k8s.io",
            "ValidatingAdmissionPolicyBinding",
            {"spec": {"paramRef": {"name": "p", "namespace": "ns"}}},
            "ParamRef",
            "ns/p",
        ),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", {"spec": {}}, "ParamRef", "<unset>"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema", {"spec": {}}, "DistinguisherMethod", "<none>"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema", {"spec": {}}, "MissingPL", "?"),
        (
            "flowcontrol.apiserver.k8s.io",
            "PriorityLevelConfiguration",
            {"spec": {"type": "Exempt"}},
            "Queues",
            "<none>",
        ),
        (
            "flowcontrol.apiserver.k8s.io",
            "PriorityLevelConfiguration",
            {
                "spec": {
                    "type": "Limited",
                    "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"}},
                }
            },
            "HandSize",
            "<none>",
        ),
        ("resource.k8s.io", "ResourceClaim", {}, "State", "pending"),
        ("certificates.k8s.io", "CertificateSigningRequest", {"spec": {}}, "RequestedDuration", "<none>"),
        ("certificates.k8s.io", "CertificateSigningRequest", {"spec": {}}, "Condition", "Pending"),
        (
            "certificates.k8s.io",
            "CertificateSigningRequest",
            {"status": {"conditions": [{"type": "Approved"}, {"type": "Denied"}, {"type": "Failed"}]}},
            "Condition",
            "Denied,Failed",
        ),
        ("internal.apiserver.k8s.io", "StorageVersion", {"status": {}}, "CommonEncodingVersion", "<unset>"),
        ("internal.apiserver.k8s.io", "StorageVersion", {"status": {}}, "StorageVersions", "<unset>"),
        ("resource.k8s.io", "ResourceClaim", {"metadata": {"deletionTimestamp": ago(seconds=1)}}, "State", "deleted"),
        ("scheduling.k8s.io", "PriorityClass", {"value": 5, "preemptionPolicy": "Never"}, "PreemptionPolicy", "Never"),
    ],
)
def test_cells_of_absent_and_alternative_values(
    group: str, kind: str, obj: dict[str, Any], column: str, expected: Any
) -> None:
    assert _cell(group, kind, obj, column) == expected
