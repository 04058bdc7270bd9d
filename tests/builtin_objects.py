"""A minimal valid object of every built-in kind served by default, and a status to write for the kinds
with a status subresource, shared by tests that need one of each kind.

Keyed by (apiVersion, kind). Objects are namespaced into "default" by the caller when the kind is
namespaced. The statuses leave out what Go would write as a zero value (a ReplicaSet's `replicas`, a
DaemonSet's counters), so reading them back tests that the server writes those fields.
"""

from __future__ import annotations

import copy
from typing import Any

Obj = dict[str, Any]

_LABELS = {"app": "demo"}
_POD_SPEC: Obj = {"containers": [{"name": "c", "image": "nginx:1.27"}]}
_TEMPLATE: Obj = {"metadata": {"labels": _LABELS}, "spec": _POD_SPEC}
_SELECTOR: Obj = {"matchLabels": _LABELS}
_TIME = "2026-01-01T00:00:00Z"
_MICRO_TIME = "2026-01-01T00:00:00.000000Z"
_WEBHOOK_CLIENT: Obj = {"url": "https://example.com/hook"}
_RULE: Obj = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
# Webhook configurations are live: the samples select no object, so the other samples' writes never
# reach their (unreachable) URL.
_NO_OBJECT: Obj = {"matchLabels": {"demo.example.com/selected": "never"}}
# A PEM certificate request for CN=demo, signed by its own P-256 key (validation checks the signature).
_CSR: str = (
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIS01IRUNBUUF3RHpFTk1Bc0dBMVVFQXd3RVpHVnRiekJa"
    "TUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSApBMElBQk85bUg5dStLL1k1d3hRWnpHck4wd3g0L3ZhZkdkaTF2V3pobW1t"
    "UjZvSmlhci84WUFCWGQ2eEFhaXVhCmNuMklEN2VKVk1xQjNZaWZJeUZkVmozT1VTYWdBREFLQmdncWhrak9QUVFEQWdOSkFE"
    "QkdBaUVBL0xqL0J4RFcKZFMwdStMZS9TZjBqK2FxMU5NYjJRVWNZd3UzMGU2aS9MV3NDSVFDUWdnbk82NkhTZ3Q2eHd4OXUv"
    "UzRwQVB6ZApIOXN4aUtKY3JtL09EWVdib0E9PQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K"
)
_CONDITION: Obj = {"type": "Ready", "status": "True", "reason": "Done", "message": "", "lastTransitionTime": _TIME}

OBJECTS: dict[tuple[str, str], Obj] = {
    ("v1", "ConfigMap"): {"data": {"a": "1"}},
    ("v1", "Endpoints"): {"subsets": [{"addresses": [{"ip": "192.0.2.1"}], "ports": [{"port": 80}]}]},
    ("v1", "Event"): {
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Started",
        "message": "started",
        "type": "Normal",
        "source": {"component": "test"},
        "firstTimestamp": _TIME,
        "lastTimestamp": _TIME,
        "count": 1,
    },
    ("v1", "LimitRange"): {"spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}}]}},
    ("v1", "Namespace"): {},
    ("v1", "Node"): {"spec": {"podCIDR": "10.0.0.0/24"}},
    ("v1", "PersistentVolumeClaim"): {
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    },
    ("v1", "PersistentVolume"): {
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}}
    },
    ("v1", "Pod"): {"spec": _POD_SPEC},
    ("v1", "PodTemplate"): {"template": _TEMPLATE},
    ("v1", "ReplicationController"): {"spec": {"replicas": 1, "selector": _LABELS, "template": _TEMPLATE}},
    ("v1", "ResourceQuota"): {"spec": {"hard": {"pods": "10"}}},
    ("v1", "Secret"): {"type": "Opaque", "data": {"a": "MQ=="}},
    ("v1", "ServiceAccount"): {},
    ("v1", "Service"): {"spec": {"selector": _LABELS, "ports": [{"port": 80}]}},
    ("admissionregistration.k8s.io/v1", "MutatingAdmissionPolicy"): {
        "spec": {
            "matchConstraints": {"resourceRules": [_RULE]},
            "mutations": [
                {
                    "patchType": "ApplyConfiguration",
                    "applyConfiguration": {"expression": "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"},
                }
            ],
            "reinvocationPolicy": "Never",
        }
    },
    ("admissionregistration.k8s.io/v1", "MutatingAdmissionPolicyBinding"): {"spec": {"policyName": "demo"}},
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"): {
        "webhooks": [
            {
                "name": "demo.example.com",
                "clientConfig": _WEBHOOK_CLIENT,
                "rules": [_RULE],
                "objectSelector": _NO_OBJECT,
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
            }
        ]
    },
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"): {
        "spec": {"matchConstraints": {"resourceRules": [_RULE]}, "validations": [{"expression": "true"}]}
    },
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding"): {
        "spec": {"policyName": "demo", "validationActions": ["Deny"]}
    },
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"): {
        "webhooks": [
            {
                "name": "demo.example.com",
                "clientConfig": _WEBHOOK_CLIENT,
                "rules": [_RULE],
                "objectSelector": _NO_OBJECT,
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
            }
        ]
    },
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"): {
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                }
            ],
        },
    },
    # a group no fixture CRD serves: the API server registers a local APIService for every CRD group
    # (`v1.example.com` for the Widget CRD above), so that name may already be taken
    ("apiregistration.k8s.io/v1", "APIService"): {
        "metadata": {"name": "v1.extension.example.org"},
        "spec": {
            "group": "extension.example.org",
            "version": "v1",
            "groupPriorityMinimum": 1000,
            "versionPriority": 15,
            "service": {"namespace": "default", "name": "api"},
            "insecureSkipTLSVerify": True,
        },
    },
    ("apps/v1", "ControllerRevision"): {"revision": 1, "data": {"a": "b"}},
    ("apps/v1", "DaemonSet"): {"spec": {"selector": _SELECTOR, "template": _TEMPLATE}},
    ("apps/v1", "Deployment"): {"spec": {"selector": _SELECTOR, "template": _TEMPLATE}},
    ("apps/v1", "ReplicaSet"): {"spec": {"selector": _SELECTOR, "template": _TEMPLATE}},
    ("apps/v1", "StatefulSet"): {"spec": {"serviceName": "demo", "selector": _SELECTOR, "template": _TEMPLATE}},
    ("autoscaling/v1", "HorizontalPodAutoscaler"): {
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3}
    },
    ("autoscaling/v2", "HorizontalPodAutoscaler"): {
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3}
    },
    ("batch/v1", "CronJob"): {
        "spec": {
            "schedule": "*/5 * * * *",
            "jobTemplate": {"spec": {"template": {"spec": {**_POD_SPEC, "restartPolicy": "Never"}}}},
        }
    },
    ("batch/v1", "Job"): {"spec": {"template": {"spec": {**_POD_SPEC, "restartPolicy": "Never"}}}},
    ("certificates.k8s.io/v1", "CertificateSigningRequest"): {
        "spec": {
            "request": _CSR,
            "signerName": "example.com/signer",
            "usages": ["digital signature"],
        }
    },
    ("coordination.k8s.io/v1", "Lease"): {"spec": {"holderIdentity": "me", "leaseDurationSeconds": 15}},
    ("discovery.k8s.io/v1", "EndpointSlice"): {
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["192.0.2.1"]}],
        "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
    },
    ("events.k8s.io/v1", "Event"): {
        "eventTime": _MICRO_TIME,
        "reportingController": "example.com/test",
        "reportingInstance": "test-1",
        "action": "Start",
        "reason": "Started",
        "type": "Normal",
        "regarding": {"kind": "Pod", "name": "p", "namespace": "default"},
    },
    ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema"): {
        "spec": {
            "priorityLevelConfiguration": {"name": "demo"},
            "matchingPrecedence": 500,
            "rules": [
                {
                    "subjects": [{"kind": "Group", "group": {"name": "demo"}}],
                    "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True}],
                }
            ],
        }
    },
    ("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration"): {
        "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"}}}
    },
    ("networking.k8s.io/v1", "IngressClass"): {"spec": {"controller": "example.com/ingress"}},
    ("networking.k8s.io/v1", "Ingress"): {
        "spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}
    },
    ("networking.k8s.io/v1", "IPAddress"): {
        "metadata": {"name": "192.0.2.10"},
        "spec": {"parentRef": {"group": "", "resource": "services", "namespace": "default", "name": "web"}},
    },
    ("networking.k8s.io/v1", "NetworkPolicy"): {"spec": {"podSelector": {}}},
    ("networking.k8s.io/v1", "ServiceCIDR"): {"spec": {"cidrs": ["10.96.0.0/16"]}},
    ("node.k8s.io/v1", "RuntimeClass"): {"handler": "runc"},
    ("policy/v1", "PodDisruptionBudget"): {"spec": {"minAvailable": 1, "selector": _SELECTOR}},
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): {
        "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
    },
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): {
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]
    },
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): {
        "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
    },
    ("rbac.authorization.k8s.io/v1", "Role"): {"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]},
    ("resource.k8s.io/v1", "DeviceClass"): {"spec": {}},
    ("resource.k8s.io/v1", "ResourceClaim"): {
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}
    },
    ("resource.k8s.io/v1", "ResourceClaimTemplate"): {
        "spec": {
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}
        }
    },
    ("resource.k8s.io/v1", "ResourceSlice"): {
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "pool", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "node-1",
            "devices": [{"name": "gpu-0"}],
        }
    },
    ("scheduling.k8s.io/v1", "PriorityClass"): {"value": 1000},
    ("storage.k8s.io/v1", "CSIDriver"): {"metadata": {"name": "csi.example.com"}, "spec": {}},
    ("storage.k8s.io/v1", "CSINode"): {"spec": {"drivers": [{"name": "csi.example.com", "nodeID": "node-1"}]}},
    ("storage.k8s.io/v1", "CSIStorageCapacity"): {"storageClassName": "fast", "capacity": "1Gi"},
    ("storage.k8s.io/v1", "StorageClass"): {"provisioner": "csi.example.com"},
    ("storage.k8s.io/v1", "VolumeAttachment"): {
        "spec": {"attacher": "csi.example.com", "nodeName": "node-1", "source": {"persistentVolumeName": "pv"}}
    },
    ("storage.k8s.io/v1", "VolumeAttributesClass"): {"driverName": "csi.example.com", "parameters": {"iops": "100"}},
}

# Statuses written through the status subresource; kinds whose status a controller owns alone
# (CustomResourceDefinition, APIService, CertificateSigningRequest's approval) are left out.
STATUSES: dict[tuple[str, str], Obj] = {
    ("v1", "Namespace"): {"phase": "Active"},
    ("v1", "Node"): {"capacity": {"cpu": "1"}},
    ("v1", "PersistentVolumeClaim"): {"phase": "Bound"},
    ("v1", "PersistentVolume"): {"phase": "Available"},
    ("v1", "Pod"): {
        "phase": "Running",
        "containerStatuses": [{"name": "c", "image": "nginx:1.27", "imageID": "", "ready": True}],
    },
    ("v1", "ReplicationController"): {"observedGeneration": 1},
    ("v1", "ResourceQuota"): {"hard": {"pods": "10"}, "used": {"pods": "0"}},
    # a ClusterIP Service may not report load balancer points (upstream refuses them): conditions instead
    ("v1", "Service"): {"loadBalancer": {}, "conditions": [_CONDITION]},
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"): {"observedGeneration": 1},
    ("apps/v1", "DaemonSet"): {"observedGeneration": 1, "numberAvailable": 1},
    ("apps/v1", "Deployment"): {"observedGeneration": 1},
    ("apps/v1", "ReplicaSet"): {"observedGeneration": 1},
    ("apps/v1", "StatefulSet"): {"observedGeneration": 1},
    ("autoscaling/v1", "HorizontalPodAutoscaler"): {"currentCPUUtilizationPercentage": 5},
    ("autoscaling/v2", "HorizontalPodAutoscaler"): {
        "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 5}}}]
    },
    ("batch/v1", "CronJob"): {"lastScheduleTime": _TIME},
    ("batch/v1", "Job"): {"active": 1},
    ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema"): {"conditions": [{"type": "Dangling", "status": "False"}]},
    ("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration"): {
        "conditions": [{"type": "ConcurrencyShared", "status": "True"}]
    },
    ("networking.k8s.io/v1", "Ingress"): {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}},
    ("networking.k8s.io/v1", "ServiceCIDR"): {"conditions": [_CONDITION]},
    ("policy/v1", "PodDisruptionBudget"): {"observedGeneration": 1},
    ("storage.k8s.io/v1", "VolumeAttachment"): {"attachmentMetadata": {"device": "/dev/sdb"}},
}


def manifest(api_version: str, kind: str, name: str = "demo") -> Obj:
    """A fresh copy of the kind's object, with apiVersion, kind and a name (unless it has its own)."""
    body = copy.deepcopy(OBJECTS[(api_version, kind)])
    metadata = body.setdefault("metadata", {})
    metadata.setdefault("name", name)
    return {"apiVersion": api_version, "kind": kind, **body}
