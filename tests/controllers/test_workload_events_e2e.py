"""Workload controllers record upstream's events, readable through both Event APIs."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
CORE_EVENTS = "/api/v1/namespaces/default/events"
EVENTS = "/apis/events.svc/v1/namespaces/default/events"


def test_a_deployment_scales_its_replica_set_which_creates_pods_and_both_say_so(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    spec = {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template}
    assert rest.request("POST", DEPLOYMENTS, body={"metadata": {"name": "web"}, "spec": spec}).status == 201
    svc_controller_manager(svc_server, "--controllers=deployment,replicaset")

    def seen() -> set:
        items = rest.request("GET", CORE_EVENTS).json()["items"]
        return {(e["involvedObject"]["kind"], e["reason"], e["source"]["component"]) for e in items}

    wanted = {
        ("Deployment", "ScalingReplicaSet", "deployment-controller"),
        ("ReplicaSet", "SuccessfulCreate", "replicaset-controller"),
    }
    assert wait_for(lambda: wanted <= seen(), timeout=20), seen()
    newer = rest.request("GET", EVENTS).json()["items"]
    scaling = next(e for e in newer if e["reason"] == "ScalingReplicaSet")
    assert scaling["regarding"]["name"] == "web"
    assert scaling["reportingController"] == "deployment-controller"
    assert scaling["note"].startswith("Scaled up replica set web-") and scaling["note"].endswith(" from 0 to 2")
