"""The disruption controller in the real daemon beside a real API server, a Deployment on a simulated
node, and the eviction subresource reading the budget's status."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.client.rest import RestClient
from svc.testing.harness import RunningControllerManager, RunningNodes, RunningServer
from tests.controllers.test_daemon import wait_for

BUDGET = "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web"
PODS = "/api/v1/namespaces/default/pods"


def test_a_budget_over_a_deployment_allows_one_eviction_then_refuses(
    svc_server: RunningServer,
    svc_nodes: Callable[..., RunningNodes],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    rest = svc_server.client()
    svc_nodes(svc_server, count=1)
    svc_controller_manager(svc_server, "--controllers=disruption,deployment,replicaset")
    labels = {"app": "web"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    deployment = {
        "metadata": {"name": "web"},
        "spec": {"replicas": 3, "selector": {"matchLabels": labels}, "template": template},
    }
    assert rest.request("POST", "/apis/apps/v1/namespaces/default/deployments", body=deployment).status == 201
    budget = {"metadata": {"name": "web"}, "spec": {"maxUnavailable": 1, "selector": {"matchLabels": labels}}}
    assert rest.request("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", body=budget).status == 201

    def status() -> dict:
        return rest.request("GET", BUDGET).json().get("status") or {}

    wanted = {
        "expectedPods": 3,
        "desiredHealthy": 2,
        "currentHealthy": 3,
        "disruptionsAllowed": 1,
        "observedGeneration": 1,
    }
    assert wait_for(lambda: {k: status().get(k) for k in wanted} == wanted, timeout=30), status()
    condition = status()["conditions"][0]
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "DisruptionAllowed",
        "True",
        "SufficientPods",
    )

    names = [pod["metadata"]["name"] for pod in rest.request("GET", f"{PODS}?labelSelector=app%3Dweb").json()["items"]]

    def evict(name: str) -> int:
        body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}}
        return rest.request("POST", f"{PODS}/{name}/eviction", body=body).status

    assert evict(names[0]) == 201
    assert evict(names[1]) == 429
    assert wait_for(
        lambda: status().get("currentHealthy") == 3 and status().get("disruptionsAllowed") == 1, timeout=30
    ), status()


def create_budget_over_web_pods(rest: RestClient, spec: dict) -> None:
    budget = {"metadata": {"name": "web"}, "spec": {**spec, "selector": {"matchLabels": {"app": "web"}}}}
    assert rest.request("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", body=budget).status == 201


def create_web_pod(rest: RestClient, name: str, **metadata: Any) -> None:
    pod = {
        "metadata": {"name": name, "labels": {"app": "web"}, **metadata},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    assert rest.request("POST", PODS, body=pod).status == 201


def budget_events(rest: RestClient, reason: str) -> list[tuple[str, str, str]]:
    items = rest.request("GET", "/api/v1/namespaces/default/events").json()["items"]
    return [
        (event["involvedObject"]["name"], event["type"], event["source"].get("component", ""))
        for event in items
        if event["reason"] == reason
    ]


def test_a_budget_over_pods_without_a_controller_says_they_are_unmanaged(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    create_web_pod(rest, "bare")
    create_budget_over_web_pods(rest, {"maxUnavailable": "50%"})
    svc_controller_manager(svc_server, "--controllers=disruption")

    expected = [("web", "Warning", "controllermanager")]
    assert wait_for(lambda: budget_events(rest, "UnmanagedPods") == expected, timeout=15), budget_events(
        rest, "UnmanagedPods"
    )
    status = rest.request("GET", BUDGET).json()["status"]
    assert (status["expectedPods"], status["disruptionsAllowed"]) == (0, 0)


def test_a_budget_over_a_pod_whose_controller_is_gone_fails_safe_with_an_event(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    gone = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "gone", "uid": "uid-gone", "controller": True}
    create_web_pod(rest, "orphan", ownerReferences=[gone])
    create_budget_over_web_pods(rest, {"maxUnavailable": 1})
    svc_controller_manager(svc_server, "--controllers=disruption")

    expected = [("web", "Warning", "controllermanager")]
    assert wait_for(lambda: budget_events(rest, "CalculateExpectedPodCountFailed") == expected, timeout=15)

    def conditions() -> list[dict]:
        return (rest.request("GET", BUDGET).json().get("status") or {}).get("conditions") or []

    assert wait_for(conditions, timeout=15)
    ((status, reason, message),) = [(c["status"], c["reason"], c["message"]) for c in conditions()]
    assert (status, reason, message) == ("False", "SyncFailed", 'found no controllers for pod "orphan"')
