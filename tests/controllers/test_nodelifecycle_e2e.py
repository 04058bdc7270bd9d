"""The node-lifecycle controller in the real daemon beside a real API server and simulated nodes."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningNodes, RunningServer, stop_process_of
from tests.controllers.test_daemon import wait_for

NODES = "/api/v1/nodes"


def test_a_node_whose_lease_stops_goes_unknown_and_is_tainted_while_a_live_node_is_not(
    svc_server: RunningServer,
    svc_nodes: Callable[..., RunningNodes],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    rest = svc_server.client()
    svc_nodes(svc_server, count=1)
    doomed = svc_nodes(svc_server, "--name-prefix=gone-", count=1)

    def node(name: str) -> dict:
        response = rest.request("GET", f"{NODES}/{name}")
        return response.json() if response.status == 200 else {}

    def ready(name: str) -> dict:
        return next((c for c in node(name).get("status", {}).get("conditions", []) if c["type"] == "Ready"), {})

    assert wait_for(lambda: ready("gone-0").get("status") == "True", timeout=30)
    svc_controller_manager(
        svc_server,
        "--controllers=nodelifecycle",
        "--node-monitor-period=1s",
        "--node-monitor-grace-period=15s",
    )
    stop_process_of(doomed.process)

    def taints(name: str) -> set[tuple[str, str]]:
        return {(t["key"], t["effect"]) for t in node(name).get("spec", {}).get("taints") or []}

    expected = {("node.kubernetes.io/unreachable", "NoExecute"), ("node.kubernetes.io/unreachable", "NoSchedule")}
    assert wait_for(lambda: taints("gone-0") == expected, timeout=45), node("gone-0")
    condition = ready("gone-0")
    assert (condition["status"], condition["reason"]) == ("Unknown", "NodeStatusUnknown")
    assert condition["message"] == "Kubelet stopped posting node status."
    assert ready("node-0")["status"] == "True"
    assert taints("node-0") == set()
    events = rest.request("GET", "/api/v1/namespaces/default/events").json()["items"]
    seen = {
        (e["involvedObject"]["name"], e["reason"]) for e in events if e["source"].get("component") == "node-controller"
    }
    assert seen == {("node-0", "RegisteredNode"), ("gone-0", "RegisteredNode"), ("gone-0", "NodeNotReady")}
