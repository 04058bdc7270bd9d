"""The horizontal-pod-autoscaler controller in the real daemon: a test metrics server (an extension
API server behind the aggregation layer) reports the Deployment's pods at 3x their CPU target, and the
Deployment, run on simulated nodes, scales up; the HPA's status and conditions say so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from svc.testing.extension_server import (
    issue_extension_tls,
    metrics_api,
    pod_metrics,
    register,
    threaded_extension_server,
)
from svc.testing.harness import RunningControllerManager, RunningNodes, RunningServer
from tests.apiserver.aggregator.extension import wait_for_available
from tests.controllers.test_daemon import wait_for

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
HPA = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"


def test_a_deployment_scales_up_when_its_pods_use_more_cpu_than_the_target(
    svc_server_factory: Callable[..., RunningServer],
    svc_nodes: Callable[..., RunningNodes],
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    rest = server.client()
    reader = server.client()

    def pods_at_150m() -> list[dict]:
        listed = reader.request("GET", "/api/v1/namespaces/default/pods", params={"labelSelector": "app=web"})
        return [
            pod_metrics("default", p["metadata"]["name"], {"app": ("150m", "20Mi")}, p["metadata"].get("labels"))
            for p in listed.json()["items"]
            if (p.get("status") or {}).get("phase") == "Running"
        ]

    api = metrics_api(lambda: [], pods_at_150m)
    with threaded_extension_server(api, issue_extension_tls(tmp_path, "metrics-server", "kube-system")) as extension:
        register(rest, extension, service="metrics-server", namespace="kube-system")
        wait_for_available(rest, "True")
        svc_nodes(server, "--brand-profile=kubernetes", count=2)
        svc_controller_manager(
            server,
            "--brand-profile=kubernetes",
            "--controllers=deployment,replicaset,horizontalpodautoscaling",
            "--horizontal-pod-autoscaler-sync-period=1s",
            "--horizontal-pod-autoscaler-cpu-initialization-period=0s",
        )
        labels = {"app": "web"}
        container = {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}
        deployment = {
            "metadata": {"name": "web"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
            },
        }
        assert rest.request("POST", DEPLOYMENTS, body=deployment).status == 201
        hpa = {
            "metadata": {"name": "web"},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 1,
                "maxReplicas": 4,
                "metrics": [
                    {
                        "type": "Resource",
                        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
                    }
                ],
            },
        }
        assert rest.request("POST", HPA, body=hpa).status == 201

        def status() -> dict:
            return rest.request("GET", f"{HPA}/web").json().get("status") or {}

        # 1 pod at 150% of its request against 50%: 3 replicas, then 3 pods at 150%: capped at 4
        assert wait_for(lambda: status().get("desiredReplicas") == 4, timeout=60), status()
        assert wait_for(lambda: rest.request("GET", f"{DEPLOYMENTS}/web").json()["spec"]["replicas"] == 4, timeout=30)
        final = status()
        conditions = {c["type"]: c for c in final["conditions"]}
        assert conditions["AbleToScale"]["status"] == "True"
        assert conditions["ScalingActive"]["reason"] == "ValidMetricFound"
        assert conditions["ScalingActive"]["message"] == (
            "the HPA was able to successfully calculate a replica count from cpu resource utilization "
            "(percentage of request)"
        )
        assert wait_for(lambda: {c["type"]: c for c in status()["conditions"]}["ScalingLimited"]["reason"]
                        == "TooManyReplicas", timeout=30), status()  # fmt: skip
        metric = status()["currentMetrics"][0]["resource"]
        assert metric["name"] == "cpu" and metric["current"]["averageUtilization"] == 150
        assert status()["lastScaleTime"]


def test_without_a_metrics_api_scaling_is_not_active(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    rest = server.client()
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
        "spec": {"replicas": 2, "selector": {"matchLabels": labels}, "template": template},
    }
    assert rest.request("POST", DEPLOYMENTS, body=deployment).status == 201
    hpa = {
        "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 4},
    }
    assert rest.request("POST", HPA, body=hpa).status == 201

    def conditions() -> dict:
        return {
            c["type"]: c for c in (rest.request("GET", f"{HPA}/web").json().get("status") or {}).get("conditions", [])
        }

    assert wait_for(lambda: "ScalingActive" in conditions(), timeout=30), conditions()
    active = conditions()["ScalingActive"]
    assert (active["status"], active["reason"]) == ("False", "FailedGetResourceMetric")
    assert active["message"].startswith(
        "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for "
        "resource cpu: unable to fetch metrics from resource metrics API:"
    )
    able = conditions()["AbleToScale"]
    assert (able["status"], able["reason"]) == ("True", "SucceededGetScale")
    assert rest.request("GET", f"{HPA}/web").json()["status"]["currentReplicas"] == 2
