"""NodeRestriction: a kubelet (system:node:<name>, group system:nodes) may only touch its own node,
mirror pods bound to it and its own lease."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import core_path, create, created, pod

NODE = {"Impersonate-User": "system:node:n1", "Impersonate-Group": "system:nodes"}


@pytest.fixture
def server(svc_server_factory: Callable[..., RunningServer]) -> RunningServer:
    return svc_server_factory(
        "--enable-admission-plugins=NodeRestriction", "--disable-admission-plugins=ServiceAccount"
    )


@pytest.fixture
def kubelet(server: RunningServer) -> RestClient:
    return server.client(headers=NODE)


def _node(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def test_kubelet_may_only_create_mirror_pods(kubelet: RestClient) -> None:
    response = create(kubelet, "pods", pod("p", nodeName="n1"))
    assert response.status == 403
    assert response.json()["message"] == (
        'pods "p" is forbidden: pod does not have "svc.io/config.mirror" annotation, node "n1" can only create '
        "mirror pods"
    )


def test_kubelet_mirror_pod_must_be_owned_by_its_node(server: RunningServer, kubelet: RestClient) -> None:
    node = created(server.client(), "nodes", _node("n1"), "")
    owner = {"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": node["metadata"]["uid"], "controller": True}
    mirror = pod("m", nodeName="n1")
    mirror["metadata"].update(annotations={"svc.io/config.mirror": "hash"}, ownerReferences=[owner])
    assert create(kubelet, "pods", mirror).status == 201
    mirror["metadata"].update(name="m2", ownerReferences=[])
    assert create(kubelet, "pods", mirror).json()["message"] == (
        'pods "m2" is forbidden: node "n1" can only create pods with an owner reference set to itself'
    )


def test_kubelet_may_not_modify_another_node(server: RunningServer, kubelet: RestClient) -> None:
    response = create(kubelet, "nodes", _node("n2"), "")
    assert response.json()["message"] == 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"'


def test_kubelet_may_not_set_restricted_labels(kubelet: RestClient) -> None:
    response = create(kubelet, "nodes", _node("n1", **{"node-restriction.svc.io/secure": "true"}), "")
    assert response.json()["message"] == (
        'nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-restriction.svc.io/secure'
    )


def test_kubelet_may_not_change_its_taints(server: RunningServer, kubelet: RestClient) -> None:
    created(server.client(), "nodes", _node("n1"), "")
    node = kubelet.request("GET", core_path("nodes", "", "n1")).json()
    node["spec"]["taints"] = []
    response = kubelet.request("PUT", core_path("nodes", "", "n1"), body=node)
    assert response.json()["message"] == 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints'


def test_kubelet_may_only_hold_its_own_lease(kubelet: RestClient) -> None:
    lease = {"apiVersion": "coordination.svc/v1", "kind": "Lease", "metadata": {"name": "n2"}}
    response = kubelet.request("POST", "/apis/coordination.svc/v1/namespaces/svc-node-lease/leases", body=lease)
    assert response.json()["message"] == (
        'leases.coordination.svc "n2" is forbidden: can only access node lease with the same name as the '
        "requesting node"
    )
