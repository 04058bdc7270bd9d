"""kubectl and Service allocation: created services show their addresses; `kubernetes` is there."""

from __future__ import annotations

import ipaddress

import pytest

from tests.e2e.kubectl_runner import Kubectl


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    return Kubectl(kubectl_binary, server.kubeconfig)


def _row(kubectl, name: str) -> list[str]:
    return kubectl.run("get", "svc", name, "--no-headers").stdout.split()


def test_create_service_clusterip_shows_its_address(kubectl) -> None:
    kubectl.run("create", "service", "clusterip", "web", "--tcp=80:8080")
    name, kind, cluster_ip, external, ports, _age = _row(kubectl, "web")
    assert (name, kind, external, ports) == ("web", "ClusterIP", "<none>", "80/TCP")
    assert ipaddress.ip_address(cluster_ip) in ipaddress.ip_network("10.0.0.0/24")


def test_create_service_nodeport_shows_its_node_port(kubectl) -> None:
    kubectl.run("create", "service", "nodeport", "edge", "--tcp=80:8080", "--node-port=30080")
    _name, kind, _ip, _external, ports, _age = _row(kubectl, "edge")
    assert (kind, ports) == ("NodePort", "80:30080/TCP")
    kubectl.run("create", "service", "nodeport", "any", "--tcp=81:8080")
    port = int(_row(kubectl, "any")[4].split(":")[1].split("/")[0])
    assert 30000 <= port <= 32767


def test_get_svc_kubernetes(kubectl) -> None:
    name, kind, cluster_ip, external, ports, _age = _row(kubectl, "kubernetes")
    assert (name, kind, cluster_ip, external, ports) == ("kubernetes", "ClusterIP", "10.0.0.1", "<none>", "443/TCP")
