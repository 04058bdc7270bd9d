"""The node simulator end to end: real server, real `svc-nodes` process, pods that run."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest


def eventually(check: Callable[[], Any], seconds: float = 10.0) -> Any:
    deadline = time.monotonic() + seconds
    for _ in range(2000):
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            break
        time.sleep(0.02)
    return None


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec}}


@pytest.fixture
def cluster(svc_server, svc_nodes):
    svc_nodes(svc_server, count=2)
    client = svc_server.client()
    yield client
    client.close()


def get_pod(client, name: str) -> dict[str, Any]:
    return client.request("GET", f"/api/v1/namespaces/default/pods/{name}").json()


def running(client, name: str) -> dict[str, Any] | None:
    found = get_pod(client, name)
    return found if found.get("status", {}).get("phase") == "Running" else None


def test_nodes_register_ready_with_leases(cluster):
    nodes = cluster.request("GET", "/api/v1/nodes").json()["items"]
    assert sorted(node["metadata"]["name"] for node in nodes) == ["node-0", "node-1"]

    def holders() -> list[str] | None:
        path = "/apis/coordination.svc/v1/namespaces/svc-node-lease/leases"
        found = sorted(lease["spec"]["holderIdentity"] for lease in cluster.request("GET", path).json()["items"])
        return found if len(found) == 2 else None

    assert eventually(holders) == ["node-0", "node-1"]


def test_a_pod_is_scheduled_and_becomes_running_and_ready(cluster):
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=pod("web")).status == 201
    found = eventually(lambda: running(cluster, "web"))
    assert found is not None
    assert found["spec"]["nodeName"] in ("node-0", "node-1")
    conditions = {c["type"]: c["status"] for c in found["status"]["conditions"]}
    assert conditions == {
        "PodScheduled": "True",
        "PodReadyToStartContainers": "True",
        "Initialized": "True",
        "ContainersReady": "True",
        "Ready": "True",
    }
    assert found["status"]["podIP"].startswith("10.244.")
    assert found["status"]["containerStatuses"][0]["ready"] is True


def test_a_pod_that_fits_nowhere_is_unschedulable_with_upstreams_message(cluster):
    spec = {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "64"}}}]}
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=pod("huge", **spec)).status == 201

    def unschedulable():
        conditions = get_pod(cluster, "huge").get("status", {}).get("conditions") or []
        return next((c for c in conditions if c["type"] == "PodScheduled" and c["status"] == "False"), None)

    condition = eventually(unschedulable)
    assert condition["reason"] == "Unschedulable"
    assert condition["message"] == "0/2 nodes are available: 2 Insufficient cpu."


def test_a_node_selector_picks_the_node(cluster):
    body = pod("pinned", nodeSelector={"svc.io/hostname": "node-1"})
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=body).status == 201
    assert eventually(lambda: running(cluster, "pinned"))["spec"]["nodeName"] == "node-1"


def test_a_pod_with_an_exit_code_ends_failed(cluster):
    body = pod("crash", restartPolicy="Never")
    body["metadata"]["annotations"] = {"simulator.svc.io/exit-code": "3"}
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=body).status == 201

    def failed():
        found = get_pod(cluster, "crash")
        return found if found.get("status", {}).get("phase") == "Failed" else None

    found = eventually(failed)
    assert found["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 3


def test_a_graceful_deletion_completes(cluster):
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=pod("bye")).status == 201
    assert eventually(lambda: running(cluster, "bye"))
    assert cluster.request("DELETE", "/api/v1/namespaces/default/pods/bye").status == 200
    assert eventually(lambda: cluster.request("GET", "/api/v1/namespaces/default/pods/bye").status == 404)


def test_the_log_of_a_running_pod_comes_from_the_simulated_kubelet(cluster):
    body = pod("talker")
    body["metadata"]["annotations"] = {"simulator.svc.io/log": "one\ntwo\nthree"}
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=body).status == 201
    assert eventually(lambda: running(cluster, "talker"))
    response = cluster.request("GET", "/api/v1/namespaces/default/pods/talker/log?tailLines=2")
    assert response.status == 200
    assert response.body == b"two\nthree\n"


def test_the_log_of_a_pod_with_two_containers_needs_a_container_name(cluster):
    two = pod("pair", containers=[{"name": "a", "image": "nginx"}, {"name": "b", "image": "nginx"}])
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=two).status == 201
    response = cluster.request("GET", "/api/v1/namespaces/default/pods/pair/log")
    assert response.status == 400
    assert response.json()["message"] == "a container name must be specified for pod pair, choose one of: [a b]"


def test_a_negative_tail_is_invalid(cluster):
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=pod("tail")).status == 201
    response = cluster.request("GET", "/api/v1/namespaces/default/pods/tail/log?tailLines=-1")
    assert response.status == 422
    assert response.json()["message"] == (
        'PodLogOptions "tail" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'
    )


def test_a_deleted_pod_is_reported_failed_before_the_kubelet_removes_it(cluster):
    body = pod("held")
    body["metadata"]["finalizers"] = ["example.com/hold"]
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=body).status == 201
    assert eventually(lambda: running(cluster, "held"))
    deleted = cluster.request("DELETE", "/api/v1/namespaces/default/pods/held").json()
    assert deleted["metadata"]["deletionGracePeriodSeconds"] == 30

    def released():
        found = get_pod(cluster, "held")
        return found if found["metadata"].get("deletionGracePeriodSeconds") == 0 else None

    found = eventually(released)
    assert found["status"]["phase"] == "Failed"
    terminated = found["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (137, "Error")


def test_a_running_pod_reports_its_resources_and_a_resize_takes_effect(cluster):
    resources = {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}}
    body = {
        "metadata": {"name": "sized"},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources}]},
    }
    assert cluster.request("POST", "/api/v1/namespaces/default/pods", body=body).status == 201
    found = eventually(lambda: running(cluster, "sized"))
    assert found["status"]["containerStatuses"][0]["resources"] == resources
    patch = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "150m"}}}]}}
    answer = cluster.request(
        "PATCH",
        "/api/v1/namespaces/default/pods/sized/resize",
        body=patch,
        content_type="application/strategic-merge-patch+json",
    )
    assert answer.status == 200, answer.body

    def reported() -> dict[str, Any] | None:
        status = get_pod(cluster, "sized")["status"]["containerStatuses"][0]
        return status["resources"] if status["resources"]["requests"]["cpu"] == "150m" else None

    assert eventually(reported) == {"requests": {"cpu": "150m"}, "limits": {"cpu": "200m"}}
