"""The taint-eviction controller in the real daemon beside a real API server and a simulated node."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningNodes, RunningServer
from tests.controllers.test_daemon import wait_for

PODS = "/api/v1/namespaces/default/pods"
DRAIN = {"key": "example.com/drain", "effect": "NoExecute"}


def test_pods_leave_a_noexecute_tainted_node_as_their_tolerations_say(
    svc_server: RunningServer,
    svc_nodes: Callable[..., RunningNodes],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    rest = svc_server.client()
    svc_nodes(svc_server, count=1)
    svc_controller_manager(svc_server, "--controllers=taint-eviction-controller")
    tolerations = {
        "plain": [],
        "brief": [{**DRAIN, "operator": "Exists", "tolerationSeconds": 3}],
        "forever": [{**DRAIN, "operator": "Exists"}],
    }
    for name, tolerating in tolerations.items():
        spec = {"containers": [{"name": "c", "image": "busybox"}], "tolerations": tolerating}
        assert rest.request("POST", PODS, body={"metadata": {"name": name}, "spec": spec}).status == 201

    def phase(name: str) -> str:
        response = rest.request("GET", f"{PODS}/{name}")
        return response.json()["status"].get("phase", "") if response.status == 200 else "Gone"

    assert wait_for(lambda: all(phase(name) == "Running" for name in tolerations), timeout=30)
    patch = {"spec": {"taints": [DRAIN]}}
    patched = rest.request("PATCH", "/api/v1/nodes/node-0", body=patch, content_type="application/merge-patch+json")
    assert patched.status == 200
    assert wait_for(lambda: phase("plain") == "Gone", timeout=15)
    assert wait_for(lambda: phase("brief") == "Gone", timeout=15)
    assert phase("forever") == "Running"
    events = rest.request("GET", "/api/v1/namespaces/default/events").json()["items"]
    marked = {e["involvedObject"]["name"]: e["message"] for e in events if e["reason"] == "TaintManagerEviction"}
    assert marked == {name: f"Marking for deletion Pod default/{name}" for name in ("plain", "brief")}
