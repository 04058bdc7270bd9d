"""The feature-gated plugins of 1.36: PodResizeValidator (in-place resize against the node)."""

from __future__ import annotations

from typing import Any

import pytest

from svc.client.rest import Response, RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import core_path, created

Obj = dict[str, Any]
SMP = "application/strategic-merge-patch+json"


@pytest.fixture
def client(svc_server: RunningServer) -> RestClient:
    return svc_server.client()


def _node(client: RestClient, name: str, system: str = "linux", cpu: str = "2", memory: str = "4Gi") -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/os": system}}}
    created(client, "nodes", node, "")
    status = {"status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}}}
    answer = client.request("PATCH", core_path("nodes", "", name) + "/status", body=status, content_type=SMP)
    assert answer.status == 200, answer.body


def _bound_pod(client: RestClient, node: str) -> None:
    resources = {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "500m", "memory": "1Gi"}}
    container = {"name": "app", "image": "nginx", "resources": resources}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"nodeName": node, "containers": [container]},
    }
    created(client, "pods", pod)


def _resize(client: RestClient, cpu: str) -> Response:
    resources = {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}
    patch = {"spec": {"containers": [{"name": "app", "resources": resources}]}}
    return client.request("PATCH", core_path("pods", "default", "p") + "/resize", body=patch, content_type=SMP)


def test_resize_beyond_the_nodes_allocatable_is_forbidden(client: RestClient) -> None:
    _node(client, "n1")
    _bound_pod(client, "n1")
    answer = _resize(client, "3")
    assert answer.status == 403
    body = answer.json()
    assert body["message"] == (
        'pods "p" is forbidden: Node didn\'t have enough allocatable resources: cpu, requested: 3000, allocatable: 2000'
    )
    assert body["details"]["causes"] == [{"reason": "NodeCapacity"}]


def test_resize_within_the_nodes_allocatable_is_admitted(client: RestClient) -> None:
    _node(client, "n1")
    _bound_pod(client, "n1")
    assert _resize(client, "1").status == 200


def test_resize_on_a_windows_node_is_forbidden(client: RestClient) -> None:
    _node(client, "w1", system="windows")
    _bound_pod(client, "w1")
    answer = _resize(client, "1")
    assert answer.status == 403
    assert answer.json()["message"] == (
        'pods "p" is forbidden: pod resize is only supported on linux nodes, node "w1" is "windows"'
    )
    assert answer.json()["details"]["causes"] == [{"reason": "UnsupportedPlatform"}]
