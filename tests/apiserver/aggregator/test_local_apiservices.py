"""Local APIServices: one per served group version with upstream's priorities and `Local` availability,
kept for CRD groups while they are served, and the aggregator's readiness checks."""

from __future__ import annotations

import time

from svc.testing.harness import RunningServer
from tests.apiserver.aggregator.extension import APISERVICES, wait_for_available
from tests.apiserver.crd.crds import CRD_PATH, WIDGET_CRD, wait_for_condition


def test_every_served_group_version_has_a_local_apiservice_with_upstreams_priorities(svc_server_factory) -> None:
    server: RunningServer = svc_server_factory("--brand-profile=kubernetes")
    items = {i["metadata"]["name"]: i for i in server.client().request("GET", APISERVICES).json()["items"]}
    assert items["v1."]["spec"] == {"version": "v1", "groupPriorityMinimum": 18000, "versionPriority": 1}
    assert items["v1.apps"]["spec"]["groupPriorityMinimum"] == 17800
    assert items["v2.autoscaling"]["spec"]["versionPriority"] == 30
    assert items["v1.apps"]["metadata"]["labels"] == {"kube-aggregator.kubernetes.io/automanaged": "onstart"}
    assert "service" not in items["v1.apps"]["spec"]


def test_local_apiservices_are_available_as_local(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    condition = wait_for_available(server.client(), "True", f"{APISERVICES}/v1.batch")
    assert (condition["reason"], condition["message"]) == ("Local", "Local APIServices are always available")


def test_a_crd_group_gets_an_apiservice_while_it_is_served(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    client = server.client()
    assert client.request("POST", CRD_PATH, body=WIDGET_CRD).status == 201
    wait_for_condition(client, "widgets.example.com", "Established")
    path = f"{APISERVICES}/v1.example.com"
    obj = None
    for _ in range(100):
        response = client.request("GET", path)
        if response.status == 200:
            obj = response.json()
            break
        time.sleep(0.1)
    assert obj is not None, "no APIService for the CRD group"
    assert obj["spec"]["groupPriorityMinimum"] == 1000 and obj["spec"]["versionPriority"] == 100
    assert obj["metadata"]["labels"] == {"kube-aggregator.kubernetes.io/automanaged": "true"}
    assert client.request("DELETE", f"{CRD_PATH}/widgets.example.com").status == 200
    for _ in range(100):
        if client.request("GET", path).status == 404:
            break
        time.sleep(0.1)
    assert client.request("GET", path).status == 404


def test_an_apiservice_must_be_named_version_dot_group(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    body = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": "v1.wrong.example.com"},
        "spec": {"group": "right.example.com", "version": "v1", "groupPriorityMinimum": 10, "versionPriority": 10},
    }
    response = server.client().request("POST", APISERVICES, body=body)
    assert response.status == 422
    assert 'must be `spec.version+"."+spec.group`: "v1.right.example.com"' in response.json()["message"]


def test_readyz_carries_the_aggregator_checks(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    body = server.client().request("GET", "/readyz", params={"verbose": "1"}).body.decode()
    for name in (
        "autoregister-completion",
        "poststarthook/apiservice-registration-controller",
        "poststarthook/apiservice-status-local-available-controller",
        "poststarthook/apiservice-status-remote-available-controller",
    ):
        assert f"[+]{name} ok" in body
