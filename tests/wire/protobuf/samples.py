"""Objects in the JSON form the API server holds, shaped like what a real cluster returns."""

from __future__ import annotations

import copy

from svc.api.omit_empty import pruner

FIELDS_V1_APPLY = {
    "f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:tier": {}}},
    "f:spec": {
        "f:containers": {
            'k:{"name":"web"}': {
                ".": {},
                "f:image": {},
                "f:imagePullPolicy": {},
                "f:name": {},
                "f:ports": {'k:{"containerPort":8080,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}},
                "f:resources": {"f:limits": {".": {}, "f:memory": {}}, "f:requests": {".": {}, "f:cpu": {}}},
            }
        },
        "f:restartPolicy": {},
    },
}

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "web-7d4b9c6f5d-x2k8p",
        "generateName": "web-7d4b9c6f5d-",
        "namespace": "default",
        "uid": "0c6a4f8e-3b2d-4f1e-9a7c-5d8e2b1f6a40",
        "resourceVersion": "123456",
        "creationTimestamp": "2024-01-02T03:04:05Z",
        "labels": {"app": "web", "pod-template-hash": "7d4b9c6f5d", "tier": "frontend"},
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "web-7d4b9c6f5d",
                "uid": "9b1e0f3a-6c2d-4e8f-a1b7-3c5d7e9f0a12",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
        "managedFields": [
            {
                "manager": "kube-controller-manager",
                "operation": "Update",
                "apiVersion": "v1",
                "time": "2024-01-02T03:04:05Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": FIELDS_V1_APPLY,
            },
            {
                "manager": "kubelet",
                "operation": "Update",
                "apiVersion": "v1",
                "time": "2024-01-02T03:04:09Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:phase": {}}},
                "subresource": "status",
            },
        ],
    },
    "spec": {
        "volumes": [
            {
                "name": "kube-api-access-5xq2r",
                "projected": {
                    "sources": [
                        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                        {
                            "configMap": {
                                "name": "kube-root-ca.crt",
                                "items": [{"key": "ca.crt", "path": "ca.crt"}],
                            }
                        },
                    ],
                    "defaultMode": 420,
                },
            }
        ],
        "containers": [
            {
                "name": "web",
                "image": "registry.example.com/web:1.25.3",
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                "env": [
                    {
                        "name": "POD_IP",
                        "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}},
                    },
                ],
                "resources": {"limits": {"memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
                "volumeMounts": [
                    {
                        "name": "kube-api-access-5xq2r",
                        "readOnly": True,
                        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                    }
                ],
                "readinessProbe": {
                    "httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
                    "periodSeconds": 10,
                    "timeoutSeconds": 1,
                    "successThreshold": 1,
                    "failureThreshold": 3,
                },
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "IfNotPresent",
            }
        ],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default",
        "serviceAccount": "default",
        "nodeName": "node-1",
        "securityContext": {},
        "schedulerName": "default-scheduler",
        "tolerations": [
            {
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
        ],
        "priority": 0,
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
    },
    "status": {
        "phase": "Running",
        "conditions": [
            {"type": "Initialized", "status": "True", "lastTransitionTime": "2024-01-02T03:04:05Z"},
            {"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-02T03:04:09Z"},
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-01-02T03:04:05Z"},
        ],
        "hostIP": "10.0.0.11",
        "podIP": "10.244.1.17",
        "startTime": "2024-01-02T03:04:05Z",
        "containerStatuses": [
            {
                "name": "web",
                "state": {"running": {"startedAt": "2024-01-02T03:04:07Z"}},
                "lastState": {},
                "ready": True,
                "restartCount": 0,
                "image": "registry.example.com/web:1.25.3",
                "imageID": "registry.example.com/web@sha256:"
                "4c2f8e9b1a7d3e6f0b5c8a2d9e1f4b7c3a6d0e9f2b5c8a1d4e7f0b3c6a9d2e5f",
                "containerID": "containerd://8f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e",
                "started": True,
            }
        ],
        "qosClass": "Burstable",
    },
}


def pod(i: int = 0) -> dict:
    """A distinct copy of POD, so lists are not made of one shared object."""
    obj = copy.deepcopy(POD)
    obj["metadata"]["name"] = f"web-7d4b9c6f5d-{i:05d}"
    obj["metadata"]["uid"] = f"0c6a4f8e-3b2d-4f1e-9a7c-{i:012d}"
    return obj


DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "web",
        "namespace": "default",
        "generation": 3,
        "creationTimestamp": "2024-01-02T03:04:05Z",
    },
    "spec": {
        "replicas": 3,
        "selector": {
            "matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["frontend", "edge"]}],
        },
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.25", "args": ["-g", "daemon off;"]}]},
        },
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 1}},
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
    },
    "status": {
        "observedGeneration": 3,
        "replicas": 3,
        "updatedReplicas": 3,
        "readyReplicas": 3,
        "availableReplicas": 3,
        "conditions": [
            {
                "type": "Available",
                "status": "True",
                "lastUpdateTime": "2024-01-02T03:05:00Z",
                "lastTransitionTime": "2024-01-02T03:05:00Z",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability.",
            }
        ],
    },
}

CONFIG_MAP_LIST = {
    "apiVersion": "v1",
    "kind": "ConfigMapList",
    "metadata": {"resourceVersion": "42", "continue": "token", "remainingItemCount": 7},
    "items": [
        {
            "metadata": {"name": f"cm-{i}", "namespace": "default", "resourceVersion": str(40 + i)},
            "data": {"app.conf": f"level={i}\n", "empty": ""},
            "immutable": i == 1,
        }
        for i in range(3)
    ],
}

SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "tls", "namespace": "default"},
    "type": "kubernetes.io/tls",
    "data": {"tls.key": "AP8QgA==", "tls.crt": ""},
    "stringData": {"note": "héllo"},
}

SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "type": "ClusterIP",
        "selector": {"app": "web"},
        "clusterIP": "10.96.0.10",
        "clusterIPs": ["10.96.0.10"],
        "ports": [
            {"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080},
            {"name": "admin", "protocol": "TCP", "port": 9000, "targetPort": "admin"},
        ],
        "sessionAffinity": "None",
    },
}

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
    "spec": {
        "podCIDR": "10.244.1.0/24",
        "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
    },
    "status": {
        "capacity": {"cpu": "4", "memory": "16393000Ki", "pods": "110", "ephemeral-storage": "100Gi"},
        "allocatable": {"cpu": "3800m", "memory": "15.5Gi", "pods": "110"},
        "conditions": [
            {
                "type": "Ready",
                "status": "True",
                "lastHeartbeatTime": "2024-01-02T03:04:05Z",
                "lastTransitionTime": "2024-01-01T00:00:00Z",
                "reason": "KubeletReady",
                "message": "kubelet is posting ready status",
            }
        ],
        "addresses": [{"type": "InternalIP", "address": "10.0.0.11"}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {"kubeletVersion": "v1.36.0", "architecture": "amd64", "operatingSystem": "linux"},
    },
}


def read_back(obj: dict) -> dict:
    """The object as upstream reads it back from storage: Go's always-written fields present (an
    absent struct `{}`, a zero time null, ...), empty values omitempty drops left out. The write prune
    gives it (tests/api/test_omit_empty.py holds it to the decoder for every kind)."""
    group, _, version = obj["apiVersion"].rpartition("/")
    shaped = copy.deepcopy(obj)
    prune = pruner(group, version, obj["kind"])
    if prune is not None:
        prune(shaped)
    return shaped
