"""The ttl controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for


def test_a_node_of_a_small_cluster_is_annotated_with_a_zero_ttl(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    assert rest.request("POST", "/api/v1/nodes", body={"metadata": {"name": "n1"}}).status == 201
    svc_controller_manager(svc_server, "--controllers=ttl")

    def annotations() -> dict:
        return rest.request("GET", "/api/v1/nodes/n1").json()["metadata"].get("annotations") or {}

    assert wait_for(lambda: annotations().get("node.alpha.svc.io/ttl") == "0", timeout=10), annotations()
