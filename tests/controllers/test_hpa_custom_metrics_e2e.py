"""The horizontal-pod-autoscaler with Pods and Object metrics in the real daemon: a test custom metrics
server (`custom.metrics.k8s.io/v1beta2`, an extension API server behind the aggregation layer) reports
each of the Deployment's pods at 3x its per-pod target and a Service well below its value target; the
Deployment, run on simulated nodes, scales up on the Pods metric, and the status reports both."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from svc.machinery.labels import parse_label_selector
from svc.testing.extension_server import (
    custom_metrics_api,
    issue_extension_tls,
    metric_value,
    register,
    threaded_extension_server,
)
from svc.testing.harness import RunningControllerManager, RunningNodes, RunningServer
from tests.apiserver.aggregator.extension import APISERVICES, wait_for_available
from tests.controllers.test_daemon import wait_for

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
HPA = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"


def test_a_deployment_scales_on_a_pods_metric_from_the_custom_metrics_api(
    svc_server_factory: Callable[..., RunningServer],
    svc_nodes: Callable[..., RunningNodes],
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    rest = server.client()
    reader = server.client()

    def values(namespace: str, resource: str, name: str, metric: str, query: Mapping[str, str]) -> list[dict]:
        if (resource, name, metric) == ("services", "web", "rps"):
            return [metric_value("Service", namespace, "web", "rps", "10")]
        if (resource, name, metric) != ("pods", "*", "requests"):
            return []
        selector = parse_label_selector(query.get("labelSelector", ""))
        listed = reader.request("GET", f"/api/v1/namespaces/{namespace}/pods").json()["items"]
        return [
            metric_value("Pod", namespace, p["metadata"]["name"], "requests", "300")
            for p in listed
            if (p.get("status") or {}).get("phase") == "Running" and selector.matches(p["metadata"].get("labels") or {})
        ]

    api = custom_metrics_api(["pods/requests", "services/rps"], values)
    with threaded_extension_server(api, issue_extension_tls(tmp_path, "custom-metrics", "kube-system")) as extension:
        register(rest, extension, service="custom-metrics", namespace="kube-system")
        wait_for_available(rest, "True", f"{APISERVICES}/v1beta2.custom.metrics.k8s.io")
        svc_nodes(server, "--brand-profile=kubernetes", count=2)
        svc_controller_manager(
            server,
            "--brand-profile=kubernetes",
            "--controllers=deployment,replicaset,horizontalpodautoscaling",
            "--horizontal-pod-autoscaler-sync-period=1s",
        )
        labels = {"app": "web"}
        template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "app", "image": "nginx"}]}}
        deployment = {
            "metadata": {"name": "web"},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template},
        }
        assert rest.request("POST", DEPLOYMENTS, body=deployment).status == 201
        service = {"apiVersion": "v1", "kind": "Service", "name": "web"}
        hpa = {
            "metadata": {"name": "web"},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 1,
                "maxReplicas": 4,
                "metrics": [
                    {
                        "type": "Pods",
                        "pods": {
                            "metric": {"name": "requests"},
                            "target": {"type": "AverageValue", "averageValue": "100"},
                        },
                    },
                    {
                        "type": "Object",
                        "object": {
                            "describedObject": service,
                            "metric": {"name": "rps"},
                            "target": {"type": "Value", "value": "100"},
                        },
                    },
                ],
            },
        }
        assert rest.request("POST", HPA, body=hpa).status == 201

        def status() -> dict:
            return rest.request("GET", f"{HPA}/web").json().get("status") or {}

        # 1 pod at 300 against 100 a pod: 3 replicas, then 3 pods at 300: capped at 4
        assert wait_for(lambda: status().get("desiredReplicas") == 4, timeout=60), status()
        assert wait_for(lambda: rest.request("GET", f"{DEPLOYMENTS}/web").json()["spec"]["replicas"] == 4, timeout=30)
        active = {c["type"]: c for c in status()["conditions"]}["ScalingActive"]
        assert (active["status"], active["reason"]) == ("True", "ValidMetricFound")
        assert active["message"] == (
            "the HPA was able to successfully calculate a replica count from pods metric requests"
        )
        assert status()["currentMetrics"] == [
            {"type": "Pods", "pods": {"metric": {"name": "requests"}, "current": {"averageValue": "300"}}},
            {
                "type": "Object",
                "object": {"describedObject": service, "metric": {"name": "rps"}, "current": {"value": "10"}},
            },
        ]
        paths = [r["path"] for r in api.requests]
        assert any(p.startswith("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/") and
                   "labelSelector=app%3Dweb" in p for p in paths), paths  # fmt: skip
        assert "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/services/web/rps" in paths
