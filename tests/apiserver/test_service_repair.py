"""The API server's Service repair loops (issue 18): an IPAddress deleted behind a Service's back
comes back, an allocator's IPAddress whose Service is gone is deleted after a minute, and a node port
missing from the allocation is put back, each with upstream's Event, through the official client."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from kubernetes import client as k8s

from svc.testing.harness import RunningServer, stop_process
from tests.controllers.test_daemon import found, official_client, wait_for

FAKE_CLOCK = ("--brand-profile=kubernetes", "--enable-test-endpoints", "--clock=fake")


def _service(name: str, kind: str = "ClusterIP", **port: int) -> k8s.V1Service:
    ports = [k8s.V1ServicePort(port=80, **port)]
    return k8s.V1Service(metadata=k8s.V1ObjectMeta(name=name), spec=k8s.V1ServiceSpec(type=kind, ports=ports))


def _events(api: k8s.ApiClient, reason: str) -> list[k8s.EventsV1Event]:
    items = k8s.EventsV1Api(api).list_namespaced_event("default").items
    return [event for event in items if event.reason == reason]


def _address(name: str, *, managed: bool, service: str = "gone") -> k8s.V1IPAddress:
    labels = {"ipaddress.kubernetes.io/ip-family": "IPv4"}
    if managed:
        labels["ipaddress.kubernetes.io/managed-by"] = "ipallocator.k8s.io"
    parent = k8s.V1ParentReference(group="", resource="services", namespace="default", name=service)
    return k8s.V1IPAddress(
        metadata=k8s.V1ObjectMeta(name=name, labels=labels), spec=k8s.V1IPAddressSpec(parent_ref=parent)
    )


@pytest.fixture
def server(svc_server_factory: Callable[..., RunningServer]) -> RunningServer:
    return svc_server_factory(*FAKE_CLOCK)


def test_a_deleted_ip_address_comes_back_at_the_next_pass(server: RunningServer, tmp_path: Path) -> None:
    api = official_client(server, tmp_path)
    ip = k8s.CoreV1Api(api).create_namespaced_service("default", _service("web")).spec.cluster_ip
    networking = k8s.NetworkingV1Api(api)
    networking.delete_ip_address(ip)
    server.advance_clock(180)
    back = wait_for(found(lambda: networking.read_ip_address(ip)), timeout=10)
    assert back is not None and back.spec.parent_ref.name == "web"
    assert back.metadata.labels["ipaddress.kubernetes.io/managed-by"] == "ipallocator.k8s.io"
    (event,) = wait_for(lambda: _events(api, "ClusterIPNotAllocated"), timeout=10)
    assert event.note == f"Cluster IP [IPv4]: {ip} is not allocated; repairing"
    assert (event.regarding.kind, event.regarding.name, event.type) == ("Service", "web", "Warning")
    assert (event.reporting_controller, event.action) == ("ipallocator-repair-controller", "ClusterIPAllocation")


def test_an_orphan_ip_address_of_the_allocator_goes_after_a_minute(server: RunningServer, tmp_path: Path) -> None:
    api = official_client(server, tmp_path)
    networking = k8s.NetworkingV1Api(api)
    networking.create_ip_address(_address("10.0.0.77", managed=True))
    networking.create_ip_address(_address("10.0.0.78", managed=False))
    server.advance_clock(59)
    time.sleep(0.5)
    assert networking.read_ip_address("10.0.0.77")
    server.advance_clock(2)
    assert wait_for(lambda: not found(lambda: networking.read_ip_address("10.0.0.77"))(), timeout=10)
    assert networking.read_ip_address("10.0.0.78"), "an IPAddress the allocator did not make is left alone"
    (event,) = wait_for(lambda: _events(api, "IPAddressNotAllocated"), timeout=10)
    assert event.note == "IPAddress: 10.0.0.77 for Service default/gone appears to have leaked: cleaning up"
    assert (event.regarding.kind, event.regarding.name) == ("IPAddress", "10.0.0.77")


def test_an_ip_address_naming_a_service_without_that_ip_goes(server: RunningServer, tmp_path: Path) -> None:
    api = official_client(server, tmp_path)
    k8s.CoreV1Api(api).create_namespaced_service("default", _service("web"))
    networking = k8s.NetworkingV1Api(api)
    networking.create_ip_address(_address("10.0.0.79", managed=True, service="web"))
    # Seen before the loop's view has the Service, the IPAddress waits out the minute of an orphan.
    server.advance_clock(61)
    assert wait_for(lambda: not found(lambda: networking.read_ip_address("10.0.0.79"))(), timeout=10)
    (event,) = wait_for(lambda: _events(api, "IPAddressWrongReference"), timeout=10)
    assert event.note == "IPAddress: 10.0.0.79 for Service default/web has a wrong reference; cleaning up"


def test_a_node_port_missing_from_the_allocation_is_put_back(server: RunningServer, tmp_path: Path) -> None:
    api = official_client(server, tmp_path)
    core = k8s.CoreV1Api(api)
    port = core.create_namespaced_service("default", _service("web", "NodePort")).spec.ports[0].node_port
    assert server.server is not None and server.server.service_allocation is not None
    server.call(server.server.service_allocation.node_ports.release([port]))
    server.advance_clock(180)
    (event,) = wait_for(lambda: _events(api, "PortNotAllocated"), timeout=10)
    assert event.note == f"Port {port} is not allocated; repairing"
    assert (event.regarding.name, event.reporting_controller) == ("web", "portallocator-repair-controller")
    with pytest.raises(k8s.ApiException) as refused:
        core.create_namespaced_service("default", _service("copy", "NodePort", node_port=port))
    assert refused.value.status == 422 and "provided port is already allocated" in refused.value.body


def test_a_node_port_outside_a_narrowed_range_is_reported(
    svc_server_process: Callable[..., RunningServer], tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    first = svc_server_process("--brand-profile=kubernetes", data_dir=data_dir)
    service = _service("web", "NodePort", node_port=30080)
    k8s.CoreV1Api(official_client(first, tmp_path / "first")).create_namespaced_service("default", service)
    stop_process(first)
    second = svc_server_process(
        "--brand-profile=kubernetes", "--service-node-port-range=31000-31999", data_dir=data_dir
    )
    api = official_client(second, tmp_path / "second")
    (event,) = wait_for(lambda: _events(api, "PortOutOfRange"), timeout=10)
    assert event.note == "Port 30080 is not within the port range 31000-31999; please recreate service"
    assert (event.regarding.name, event.action) == ("web", "PortAllocation")
