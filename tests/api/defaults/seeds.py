"""One object per defaulted kind, with every field its defaulter reads present at least once; the
property tests perturb these so that generated objects reach deep paths."""

from __future__ import annotations

from typing import Any

_PROBE = {"httpGet": {"port": 80}, "grpc": {"port": 9000}, "timeoutSeconds": 2}
_CONTAINER = {
    "name": "c",
    "image": "nginx:latest",
    "env": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}, "fileKeyRef": {"key": "k"}}}],
    "lifecycle": {"postStart": {"httpGet": {"port": 1}}, "preStop": {"httpGet": {"path": "/stop", "port": 1}}},
    "livenessProbe": _PROBE,
    "readinessProbe": {"exec": {"command": ["true"]}},
    "startupProbe": _PROBE,
    "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP", "hostPort": 5353}],
    "resources": {"limits": {"cpu": "1", "memory": "1Gi", "hugepages-2Mi": "2Mi"}, "requests": {"cpu": "0.5"}},
}
_VOLUMES = [
    {"name": "a", "azureDisk": {"diskName": "d"}},
    {"name": "b", "configMap": {"name": "m"}},
    {"name": "c", "downwardAPI": {"items": [{"path": "p", "fieldRef": {"fieldPath": "metadata.name"}}]}},
    {"name": "d"},
    {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "1G"}}}}}},
    {"name": "f", "hostPath": {"path": "/"}},
    {"name": "g", "iscsi": {"targetPortal": "t", "iqn": "i", "lun": 0}},
    {
        "name": "h",
        "projected": {"sources": [{"downwardAPI": {"items": [{"fieldRef": {}}]}}, {"serviceAccountToken": {}}]},
    },
    {"name": "i", "rbd": {"monitors": ["m"], "image": "i"}},
    {"name": "j", "scaleIO": {"gateway": "g", "system": "s", "secretRef": {}}},
    {"name": "k", "secret": {"secretName": "s", "defaultMode": 256}},
    {"name": "l", "image": {"reference": "tool@sha256:" + "0" * 64}},
]


def _pod_spec() -> dict[str, Any]:
    return {
        "containers": [_CONTAINER],
        "initContainers": [{**_CONTAINER, "name": "sidecar", "restartPolicy": "Always"}, {**_CONTAINER, "name": "i"}],
        "ephemeralContainers": [{**_CONTAINER, "name": "debug"}],
        "volumes": _VOLUMES,
        "hostNetwork": True,
        "resources": {"limits": {"cpu": "4", "hugepages-2Mi": "8Mi"}},
        "overhead": {"cpu": "0.1"},
    }


def _template() -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "a"}}, "spec": _pod_spec()}


_CLAIM = {"metadata": {"name": "data"}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}}
_FAILURE_POLICY = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
_MATCH = {"resourceRules": [{"apiGroups": [""]}], "excludeResourceRules": [{"apiGroups": ["apps"]}]}
_WEBHOOK = {"name": "w", "clientConfig": {"service": {"name": "s", "namespace": "n"}}, "rules": [{"operations": ["*"]}]}

SEEDS: list[tuple[str, str, dict[str, Any]]] = [
    ("", "Pod", {"apiVersion": "v1", "kind": "Pod", "spec": _pod_spec()}),
    ("", "PodTemplate", {"template": _template()}),
    ("", "ReplicationController", {"spec": {"template": _template()}}),
    (
        "",
        "Service",
        {
            "spec": {
                "type": "LoadBalancer",
                "sessionAffinity": "ClientIP",
                "sessionAffinityConfig": {"clientIP": {}},
                "ports": [{"port": 80}, {"port": 53, "protocol": "UDP", "targetPort": "dns"}],
            }
        },
    ),
    ("", "Secret", {"data": {}}),
    ("", "PersistentVolume", {"spec": {"capacity": {"storage": "1Gi"}, "rbd": {}, "iscsi": {}, "hostPath": {}}}),
    ("", "PersistentVolumeClaim", {"spec": {"resources": {"requests": {"storage": "0.5Gi"}}}}),
    ("", "Endpoints", {"subsets": [{"ports": [{"port": 80}]}]}),
    ("", "LimitRange", {"spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"}}]}}),
    ("", "ResourceQuota", {"spec": {"hard": {"cpu": "10", "memory": "0.5Ti"}}}),
    ("apps", "Deployment", {"spec": {"strategy": {"rollingUpdate": {"maxSurge": 1}}, "template": _template()}}),
    ("apps", "ReplicaSet", {"spec": {"template": _template()}}),
    ("apps", "StatefulSet", {"spec": {"template": _template(), "volumeClaimTemplates": [_CLAIM]}}),
    ("apps", "DaemonSet", {"spec": {"updateStrategy": {}, "template": _template()}}),
    ("batch", "Job", {"spec": {"podFailurePolicy": _FAILURE_POLICY, "template": _template()}}),
    (
        "batch",
        "CronJob",
        {"spec": {"jobTemplate": {"spec": {"podFailurePolicy": _FAILURE_POLICY, "template": _template()}}}},
    ),
    ("autoscaling", "HorizontalPodAutoscaler", {"apiVersion": "autoscaling/v2", "spec": {"behavior": {"scaleUp": {}}}}),
    ("autoscaling", "HorizontalPodAutoscaler", {"apiVersion": "autoscaling/v1", "spec": {}}),
    (
        "rbac.authorization.k8s.io",
        "RoleBinding",
        {"roleRef": {"name": "r"}, "subjects": [{"kind": "User", "name": "u"}]},
    ),
    (
        "networking.k8s.io",
        "NetworkPolicy",
        {"spec": {"egress": [{"ports": [{"port": 53}]}], "ingress": [{"ports": [{}]}]}},
    ),
    ("networking.k8s.io", "IngressClass", {"spec": {"parameters": {"kind": "K", "name": "n"}}}),
    ("storage.k8s.io", "StorageClass", {"provisioner": "p"}),
    ("storage.k8s.io", "CSIDriver", {"spec": {}}),
    (
        "storage.k8s.io",
        "VolumeAttachment",
        {"spec": {"source": {"inlineVolumeSpec": {"capacity": {}, "azureDisk": {}}}}},
    ),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration", {"webhooks": [_WEBHOOK]}),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy", {"spec": {"matchConstraints": _MATCH}}),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding", {"spec": {"matchResources": _MATCH}}),
    ("apiextensions.k8s.io", "CustomResourceDefinition", {"spec": {"names": {"kind": "Widget"}}}),
    ("apiregistration.k8s.io", "APIService", {"spec": {"service": {"name": "s"}}}),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema", {"spec": {}}),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        {"spec": {"limited": {"limitResponse": {"queuing": {}}}, "exempt": {}}},
    ),
    ("discovery.k8s.io", "EndpointSlice", {"ports": [{"port": 80}]}),
    ("scheduling.k8s.io", "PriorityClass", {"value": 1}),
    ("resource.k8s.io", "ResourceClaim", {"spec": {"devices": {"requests": [{"exactly": {"tolerations": [{}]}}]}}}),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        {"spec": {"spec": {"devices": {"requests": [{"firstAvailable": [{}, {"allocationMode": "All"}]}]}}}},
    ),
]
