"""The resourcequota controller in the real daemon beside a real API server."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from kubernetes import client as k8s

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import official_client, wait_for

QUOTA = "/api/v1/namespaces/default/resourcequotas/q"


def test_quota_status_counts_objects_and_pod_requests_and_follows_deletions(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, "--controllers=resourcequota")
    rest = svc_server.client()
    hard = {"pods": "5", "configmaps": "10", "requests.cpu": "2", "count/deployments.apps": "3"}
    body = {"metadata": {"name": "q"}, "spec": {"hard": hard}}
    assert rest.request("POST", "/api/v1/namespaces/default/resourcequotas", body=body).status == 201
    resources = {"requests": {"cpu": "300m"}}
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources}]}}
    assert rest.request("POST", "/api/v1/namespaces/default/pods", body=pod).status == 201

    def used() -> dict:
        return (rest.request("GET", QUOTA).json().get("status") or {}).get("used") or {}

    assert wait_for(lambda: used().get("pods") == "1" and used().get("requests.cpu") == "300m", timeout=10), used()
    status = rest.request("GET", QUOTA).json()["status"]
    assert status["hard"] == hard
    assert status["used"]["count/deployments.apps"] == "0"
    assert rest.request("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0").status == 200
    assert wait_for(lambda: used().get("pods") == "0" and used().get("requests.cpu") == "0", timeout=10), used()


def test_the_official_client_reads_the_counts_in_a_quotas_status(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--controllers=resourcequota")
    with official_client(server, tmp_path) as api_client:
        core = k8s.CoreV1Api(api_client)
        hard = {"pods": "5", "configmaps": "10", "requests.memory": "1Gi"}
        quota = k8s.V1ResourceQuota(metadata=k8s.V1ObjectMeta(name="q"), spec=k8s.V1ResourceQuotaSpec(hard=hard))
        core.create_namespaced_resource_quota("default", quota)
        core.create_namespaced_config_map("default", k8s.V1ConfigMap(metadata=k8s.V1ObjectMeta(name="settings")))
        resources = k8s.V1ResourceRequirements(requests={"memory": "64Mi"})
        container = k8s.V1Container(name="c", image="nginx", resources=resources)
        core.create_namespaced_pod(
            "default", k8s.V1Pod(metadata=k8s.V1ObjectMeta(name="p"), spec=k8s.V1PodSpec(containers=[container]))
        )

        def used() -> dict[str, str]:
            return core.read_namespaced_resource_quota_status("q", "default").status.used or {}

        expected = {"pods": "1", "configmaps": "1", "requests.memory": "64Mi"}
        assert wait_for(lambda: used() == expected, timeout=10), used()
        assert core.read_namespaced_resource_quota("q", "default").status.hard == hard


def test_a_best_effort_quota_counts_and_limits_only_best_effort_pods(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, "--controllers=resourcequota")
    rest = svc_server.client()
    body = {"metadata": {"name": "q"}, "spec": {"hard": {"pods": "1"}, "scopes": ["BestEffort"]}}
    assert rest.request("POST", "/api/v1/namespaces/default/resourcequotas", body=body).status == 201

    def used() -> dict:
        return (rest.request("GET", QUOTA).json().get("status") or {}).get("used") or {}

    assert wait_for(lambda: used().get("pods") == "0", timeout=10), used()
    sized = {"requests": {"cpu": "100m"}}
    guaranteed = {
        "metadata": {"name": "sized"},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": sized}]},
    }
    assert rest.request("POST", "/api/v1/namespaces/default/pods", body=guaranteed).status == 201
    plain = {"metadata": {"name": "plain"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    assert rest.request("POST", "/api/v1/namespaces/default/pods", body=plain).status == 201
    assert wait_for(lambda: used().get("pods") == "1", timeout=10), used()
    time.sleep(0.5)  # a later sync must not count the pod with requests
    assert used().get("pods") == "1"
    second = {"metadata": {"name": "plain-2"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    assert rest.request("POST", "/api/v1/namespaces/default/pods", body=second).status == 403
