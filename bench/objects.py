"""The objects the bench writes: a ~1 KB ConfigMap and a pod-sized (~3 KB JSON) Pod.

The Pod looks like one a Deployment makes (labels, annotations, a container with env, ports, probes,
resources and volume mounts) so its size and shape, not only its byte count, match what
a real cluster stores.
"""

from __future__ import annotations

from typing import Any

import orjson

CONFIGMAP_PAYLOAD = 600
SENT_KEY = "sent-ns"


def configmap(name: str, *, payload: int = CONFIGMAP_PAYLOAD, sent_ns: int | None = None) -> dict[str, Any]:
    """A ConfigMap whose stored form is about 1 KB; `sent_ns` embeds a write time for watch latency."""
    data = {"payload": "x" * payload}
    if sent_ns is not None:
        data[SENT_KEY] = str(sent_ns)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": {"app": "bench", "tier": "config"}},
        "data": data,
    }


def _container(name: str, image: str, port: int) -> dict[str, Any]:
    return {
        "name": name,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "args": ["--port", str(port), "--log-level", "info", "--metrics-bind-address", ":9090"],
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
        "env": [
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
            {"name": "LOG_FORMAT", "value": "json"},
            {"name": "CACHE_SIZE", "value": "512Mi"},
        ],
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
        "readinessProbe": {"httpGet": {"path": "/readyz", "port": port}, "periodSeconds": 10},
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": port}, "initialDelaySeconds": 15},
        "volumeMounts": [
            {"name": "config", "mountPath": "/etc/app", "readOnly": True},
            {"name": "data", "mountPath": "/var/lib/app"},
        ],
    }


def pod(name: str) -> dict[str, Any]:
    """A pod-sized object: about 3 KB of JSON once the server adds its metadata and defaults."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "labels": {"app": "bench-web", "pod-template-hash": "7d9c8b6f5d", "tier": "frontend"},
            "annotations": {
                "prometheus.io/scrape": "true",
                "prometheus.io/port": "9090",
                "kubectl.kubernetes.io/default-container": "web",
            },
        },
        "spec": {
            "containers": [_container("web", "registry.example/bench/web:1.27.3", 8080)],
            "volumes": [
                {"name": "config", "configMap": {"name": "bench-web-config"}},
                {"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
            ],
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}],
            "terminationGracePeriodSeconds": 30,
        },
    }


def encode(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj)


def deployment(name: str) -> dict[str, Any]:
    """A Deployment whose pod template is the bench Pod's spec, so its validation walks the same pod."""
    template = pod(name)
    labels = template["metadata"]["labels"]
    del labels["pod-template-hash"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": dict(labels)},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": dict(labels)},
            "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {"metadata": template["metadata"], "spec": template["spec"]},
        },
    }
