"""The endpointslice-mirroring controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

SLICES = "/apis/discovery.svc/v1/namespaces/default/endpointslices"


def test_custom_endpoints_of_a_selectorless_service_are_mirrored_and_follow_changes(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    service = {"metadata": {"name": "external-db"}, "spec": {"ports": [{"port": 5432}]}}
    assert rest.request("POST", "/api/v1/namespaces/default/services", body=service).status == 201
    subsets = [{"addresses": [{"ip": "192.0.2.10"}], "ports": [{"port": 5432}]}]
    endpoints = {"metadata": {"name": "external-db"}, "subsets": subsets}
    assert rest.request("POST", "/api/v1/namespaces/default/endpoints", body=endpoints).status == 201
    svc_controller_manager(svc_server, "--controllers=endpointslice-mirroring-controller")
    selector = "endpointslice.svc.io/managed-by=endpointslicemirroring-controller.k8s.io"

    def addresses() -> list:
        items = rest.request("GET", f"{SLICES}?labelSelector={selector}").json()["items"]
        return sorted(a for item in items for e in item.get("endpoints") or [] for a in e["addresses"])

    assert wait_for(lambda: addresses() == ["192.0.2.10"], timeout=15), addresses()
    current = rest.request("GET", "/api/v1/namespaces/default/endpoints/external-db").json()
    current["subsets"][0]["addresses"].append({"ip": "192.0.2.11"})
    assert rest.request("PUT", "/api/v1/namespaces/default/endpoints/external-db", body=current).status == 200
    assert wait_for(lambda: addresses() == ["192.0.2.10", "192.0.2.11"], timeout=15), addresses()
    kubernetes = rest.request("GET", f"{SLICES}?labelSelector=svc.io/service-name=svc").json()["items"]
    assert all(
        item["metadata"]["labels"].get("endpointslice.svc.io/managed-by") != "endpointslicemirroring-controller.k8s.io"
        for item in kubernetes
    )
