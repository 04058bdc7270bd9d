"""A Deployment that has rolled out is left alone: its controllers' status writes that change nothing
store nothing, so its resourceVersion holds (a regression once made every such write a new revision,
and the controller, seeing its own write, wrote again several times a second)."""

from __future__ import annotations

import time
from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningNodes, RunningServer
from tests.controllers.test_daemon import wait_for

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
KUBERNETES = "--brand-profile=kubernetes"


def test_a_rolled_out_deployment_keeps_its_resource_version(
    svc_server_factory: Callable[..., RunningServer],
    svc_nodes: Callable[..., RunningNodes],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory(KUBERNETES)
    rest = server.client()
    svc_nodes(server, KUBERNETES, count=1)
    svc_controller_manager(server, KUBERNETES, "--controllers=deployment,replicaset")
    labels = {"app": "web"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    deployment = {
        "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template},
    }
    assert rest.request("POST", DEPLOYMENTS, body=deployment).status == 201

    def available() -> bool:
        return (rest.request("GET", f"{DEPLOYMENTS}/web").json().get("status") or {}).get("availableReplicas") == 1

    assert wait_for(available, timeout=30)
    time.sleep(1.0)  # let the last status write of the rollout land
    before = rest.request("GET", f"{DEPLOYMENTS}/web").json()["metadata"]["resourceVersion"]
    time.sleep(2.0)
    assert rest.request("GET", f"{DEPLOYMENTS}/web").json()["metadata"]["resourceVersion"] == before
