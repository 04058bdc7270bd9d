"""node-ipam in the real daemon beside a real API server: dual-stack pod CIDRs per node."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for


def test_nodes_get_distinct_dual_stack_pod_cidrs_outside_the_service_range(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    for name in ("n1", "n2"):
        assert rest.request("POST", "/api/v1/nodes", body={"metadata": {"name": name}}).status == 201
    svc_controller_manager(
        svc_server,
        "--controllers=node-ipam-controller",
        "--allocate-node-cidrs",
        "--cluster-cidr=10.96.0.0/16,fd00:10::/56",
        "--service-cluster-ip-range=10.96.0.0/24",
    )

    def cidrs(name: str) -> list:
        return rest.request("GET", f"/api/v1/nodes/{name}").json()["spec"].get("podCIDRs") or []

    assert wait_for(lambda: cidrs("n1") and cidrs("n2"), timeout=15), (cidrs("n1"), cidrs("n2"))
    assigned = {tuple(cidrs("n1")), tuple(cidrs("n2"))}
    assert assigned == {("10.96.1.0/24", "fd00:10::/64"), ("10.96.2.0/24", "fd00:10:0:1::/64")}
    assert rest.request("GET", "/api/v1/nodes/n1").json()["spec"]["podCIDR"] == cidrs("n1")[0]
