"""The endpoints and endpointslice controllers in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubernetes import client as k8s

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import official_client, wait_for

SLICES = "/apis/discovery.svc/v1/namespaces/default/endpointslices?labelSelector=svc.io%2Fservice-name%3Dweb"
MERGE = "application/merge-patch+json"


def make_pod(rest: Any, name: str, ip: str) -> None:
    body = {
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"name": "web", "containerPort": 8080}]}]},
    }
    assert rest.request("POST", "/api/v1/namespaces/default/pods", body=body).status == 201
    status = {"status": {"podIP": ip, "conditions": [{"type": "Ready", "status": "True"}]}}
    path = f"/api/v1/namespaces/default/pods/{name}/status"
    assert rest.request("PATCH", path, body=status, content_type=MERGE).status == 200


def addresses(rest: Any) -> list[tuple[str, bool]]:
    items = rest.request("GET", SLICES).json()["items"]
    return sorted((e["addresses"][0], e["conditions"]["ready"]) for s in items for e in s.get("endpoints") or [])


def test_an_endpoint_slice_and_endpoints_follow_a_services_pods(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, "--controllers=endpointslice,endpoint")
    rest = svc_server.client()
    service = {
        "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "web"}]},
    }
    assert rest.request("POST", "/api/v1/namespaces/default/services", body=service).status == 201
    make_pod(rest, "a", "10.1.0.1")
    make_pod(rest, "b", "10.1.0.2")
    assert wait_for(lambda: addresses(rest) == [("10.1.0.1", True), ("10.1.0.2", True)], timeout=10)
    [endpoint_slice] = rest.request("GET", SLICES).json()["items"]
    assert endpoint_slice["ports"] == [{"name": "", "port": 8080, "protocol": "TCP"}]
    assert endpoint_slice["metadata"]["ownerReferences"][0]["kind"] == "Service"
    not_ready = {"status": {"conditions": [{"type": "Ready", "status": "False"}]}}
    path = "/api/v1/namespaces/default/pods/b/status"
    assert rest.request("PATCH", path, body=not_ready, content_type=MERGE).status == 200
    assert rest.request("DELETE", "/api/v1/namespaces/default/pods/a?gracePeriodSeconds=0").status == 200
    assert wait_for(lambda: addresses(rest) == [("10.1.0.2", False)], timeout=10)

    def endpoints() -> dict:
        response = rest.request("GET", "/api/v1/namespaces/default/endpoints/web")
        return response.json() if response.status == 200 else {}

    assert wait_for(
        lambda: (
            [a["ip"] for s in endpoints().get("subsets", []) for a in s.get("notReadyAddresses", [])] == ["10.1.0.2"]
        ),
        timeout=10,
    )
    assert rest.request("DELETE", "/api/v1/namespaces/default/services/web").status == 200
    assert wait_for(lambda: rest.request("GET", "/api/v1/namespaces/default/endpoints/web").status == 404, timeout=10)


def test_the_official_client_sees_an_endpoint_slice_follow_a_services_pods(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--controllers=endpointslice")
    api_client = official_client(server, tmp_path)
    core, discovery = k8s.CoreV1Api(api_client), k8s.DiscoveryV1Api(api_client)
    port = k8s.V1ServicePort(name="http", port=80, target_port="web")
    core.create_namespaced_service(
        "default",
        k8s.V1Service(
            metadata=k8s.V1ObjectMeta(name="web"), spec=k8s.V1ServiceSpec(selector={"app": "web"}, ports=[port])
        ),
    )
    container = k8s.V1Container(name="c", image="nginx", ports=[k8s.V1ContainerPort(name="web", container_port=8080)])
    pod = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="a", labels={"app": "web"}), spec=k8s.V1PodSpec(containers=[container])
    )
    core.create_namespaced_pod("default", pod)
    status = {"status": {"podIP": "10.2.0.1", "conditions": [{"type": "Ready", "status": "True"}]}}
    core.patch_namespaced_pod_status("a", "default", status)

    def endpoints() -> list[tuple[str, int]]:
        slices = discovery.list_namespaced_endpoint_slice("default", label_selector="kubernetes.io/service-name=web")
        return [(e.addresses[0], s.ports[0].port) for s in slices.items for e in s.endpoints or []]

    assert wait_for(lambda: endpoints() == [("10.2.0.1", 8080)], timeout=10)
    [endpoint_slice] = discovery.list_namespaced_endpoint_slice("default").items
    assert endpoint_slice.metadata.labels["endpointslice.kubernetes.io/managed-by"] == "endpointslice-controller.k8s.io"
    core.delete_namespaced_pod("a", "default", grace_period_seconds=0)
    assert wait_for(lambda: endpoints() == [], timeout=10)
    api_client.close()
