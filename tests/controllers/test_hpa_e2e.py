"""The horizontal-pod-autoscaler controller in the real daemon: a test metrics server (an extension
API server behind the aggregation layer) reports the Deployment's pods above their target, and the
Deployment, run on simulated nodes, scales up; the HPA's status and conditions say so. Once with the
resource metrics API (CPU utilization), once with the custom metrics API (a Pods metric, with an
Object metric reported beside it). Two HPAs on the same pods are both refused as ambiguous."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from svc.client.rest import RestClient
from svc.machinery.labels import parse_label_selector
from svc.testing.extension_server import (
    ExtensionApi,
    custom_metrics_api,
    issue_extension_tls,
    metric_value,
    metrics_api,
    pod_metrics,
    register,
    threaded_extension_server,
)
from svc.testing.harness import RunningControllerManager, RunningNodes, RunningServer
from tests.apiserver.aggregator.extension import APISERVICES, wait_for_available
from tests.controllers.test_daemon import wait_for

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
HPA = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"


def running_pods(reader: RestClient, namespace: str, selector: str) -> list[dict]:
    listed = reader.request("GET", f"/api/v1/namespaces/{namespace}/pods", params={"labelSelector": selector})
    return [p for p in listed.json()["items"] if (p.get("status") or {}).get("phase") == "Running"]


def web_deployment(
    server: RunningServer,
    svc_controller_manager: Callable[..., RunningControllerManager],
    *,
    replicas: int,
    container: dict,
    flags: tuple[str, ...] = (),
) -> RestClient:
    """The deployment, replicaset and HPA controllers (1 s HPA sync), and a Deployment `web` of `replicas`
    pods labelled app=web running `container`."""
    rest = server.client()
    svc_controller_manager(
        server,
        "--brand-profile=kubernetes",
        "--controllers=deployment,replicaset,horizontalpodautoscaling",
        "--horizontal-pod-autoscaler-sync-period=1s",
        *flags,
    )
    labels = {"app": "web"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [container]}}
    deployment = {
        "metadata": {"name": "web"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": labels}, "template": template},
    }
    assert rest.request("POST", DEPLOYMENTS, body=deployment).status == 201
    return rest


@contextlib.contextmanager
def autoscaled_web(
    server: RunningServer,
    svc_nodes: Callable[..., RunningNodes],
    svc_controller_manager: Callable[..., RunningControllerManager],
    api: ExtensionApi,
    tmp_path: Path,
    *,
    container: dict,
    metrics: list[dict],
    flags: tuple[str, ...] = (),
) -> Iterator[RestClient]:
    """`api` served behind the aggregation layer, two simulated nodes, the deployment, replicaset and
    HPA controllers, and a one-replica Deployment `web` with an HPA (1 to 4 replicas) on `metrics`."""
    rest = server.client()
    with threaded_extension_server(api, issue_extension_tls(tmp_path, "metrics", "kube-system")) as extension:
        register(rest, extension, service="metrics", namespace="kube-system")
        wait_for_available(rest, "True", f"{APISERVICES}/{api.version}.{api.group}")
        svc_nodes(server, "--brand-profile=kubernetes", count=2)
        web_deployment(server, svc_controller_manager, replicas=1, container=container, flags=flags)
        target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
        hpa = {
            "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": target, "minReplicas": 1, "maxReplicas": 4, "metrics": metrics},
        }
        assert rest.request("POST", HPA, body=hpa).status == 201
        yield rest


def hpa_status(rest: RestClient) -> dict:
    return rest.request("GET", f"{HPA}/web").json().get("status") or {}


def assert_scaled_to_four(rest: RestClient, metric_name: str) -> None:
    """1 pod at 3x its target asks for 3 replicas, then 3 such pods are capped at 4."""
    assert wait_for(lambda: hpa_status(rest).get("desiredReplicas") == 4, timeout=60), hpa_status(rest)
    assert wait_for(lambda: rest.request("GET", f"{DEPLOYMENTS}/web").json()["spec"]["replicas"] == 4, timeout=30)
    active = {c["type"]: c for c in hpa_status(rest)["conditions"]}["ScalingActive"]
    assert (active["status"], active["reason"]) == ("True", "ValidMetricFound")
    assert active["message"] == f"the HPA was able to successfully calculate a replica count from {metric_name}"


def test_a_deployment_scales_up_when_its_pods_use_more_cpu_than_the_target(
    svc_server_factory: Callable[..., RunningServer],
    svc_nodes: Callable[..., RunningNodes],
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    reader = server.client()

    def pods_at_150m() -> list[dict]:
        return [
            pod_metrics("default", p["metadata"]["name"], {"app": ("150m", "20Mi")}, p["metadata"].get("labels"))
            for p in running_pods(reader, "default", "app=web")
        ]

    container = {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}
    cpu = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
    api = metrics_api(lambda: [], pods_at_150m)
    flags = ("--horizontal-pod-autoscaler-cpu-initialization-period=0s",)
    with autoscaled_web(
        server, svc_nodes, svc_controller_manager, api, tmp_path, container=container, metrics=[cpu], flags=flags
    ) as rest:
        # 150% of the request against 50%
        assert_scaled_to_four(rest, "cpu resource utilization (percentage of request)")
        assert wait_for(lambda: {c["type"]: c for c in hpa_status(rest)["conditions"]}["ScalingLimited"]["reason"]
                        == "TooManyReplicas", timeout=30), hpa_status(rest)  # fmt: skip
        metric = hpa_status(rest)["currentMetrics"][0]["resource"]
        assert metric["name"] == "cpu" and metric["current"]["averageUtilization"] == 150
        assert hpa_status(rest)["lastScaleTime"]


def test_a_deployment_scales_on_a_pods_metric_from_the_custom_metrics_api(
    svc_server_factory: Callable[..., RunningServer],
    svc_nodes: Callable[..., RunningNodes],
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    reader = server.client()

    def values(namespace: str, resource: str, name: str, metric: str, query: Mapping[str, str]) -> list[dict]:
        if (resource, name, metric) == ("services", "web", "rps"):
            return [metric_value("Service", namespace, "web", "rps", "10")]
        if (resource, name, metric) != ("pods", "*", "requests"):
            return []
        selector = parse_label_selector(query.get("labelSelector", ""))
        return [
            metric_value("Pod", namespace, p["metadata"]["name"], "requests", "300")
            for p in running_pods(reader, namespace, "")
            if selector.matches(p["metadata"].get("labels") or {})
        ]

    service = {"apiVersion": "v1", "kind": "Service", "name": "web"}
    metrics = [
        {
            "type": "Pods",
            "pods": {"metric": {"name": "requests"}, "target": {"type": "AverageValue", "averageValue": "100"}},
        },
        {
            "type": "Object",
            "object": {
                "describedObject": service,
                "metric": {"name": "rps"},
                "target": {"type": "Value", "value": "100"},
            },
        },
    ]
    api = custom_metrics_api(["pods/requests", "services/rps"], values)
    container = {"name": "app", "image": "nginx"}
    with autoscaled_web(
        server, svc_nodes, svc_controller_manager, api, tmp_path, container=container, metrics=metrics
    ) as rest:
        # 300 a pod against 100 a pod; the Service's 10 against 100 would scale down, and the larger proposal wins
        assert_scaled_to_four(rest, "pods metric requests")
        assert hpa_status(rest)["currentMetrics"] == [
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


def test_without_a_metrics_api_scaling_is_not_active(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    rest = web_deployment(server, svc_controller_manager, replicas=2, container={"name": "app", "image": "nginx"})
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


def test_two_hpas_on_the_same_pods_are_both_ambiguous(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    rest = web_deployment(server, svc_controller_manager, replicas=2, container={"name": "app", "image": "nginx"})
    pods = "/api/v1/namespaces/default/pods"
    assert wait_for(lambda: len(rest.request("GET", pods).json()["items"]) == 2, timeout=30)
    target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    for name in ("web", "rival"):
        hpa = {"metadata": {"name": name}, "spec": {"scaleTargetRef": target, "maxReplicas": 4}}
        assert rest.request("POST", HPA, body=hpa).status == 201
    message = "pods by selector app=web are controlled by multiple HPAs: [default/rival default/web]"

    def active(name: str) -> dict:
        status = rest.request("GET", f"{HPA}/{name}").json().get("status") or {}
        return {c["type"]: c for c in status.get("conditions", [])}.get("ScalingActive", {})

    for name in ("web", "rival"):
        assert wait_for(lambda name=name: active(name).get("reason") == "AmbiguousSelector", timeout=30), active(name)
        assert (active(name)["status"], active(name)["message"]) == ("False", message)
    events = rest.request("GET", "/api/v1/namespaces/default/events").json()["items"]
    assert any(e["reason"] == "AmbiguousSelector" and e["message"] == message for e in events)
