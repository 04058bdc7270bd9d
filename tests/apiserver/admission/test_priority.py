"""Priority: PriorityClass resolution, the global default, the system classes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import create, created, pod

CLASSES = "/apis/scheduling.svc/v1/priorityclasses"


@pytest.fixture
def client(svc_server_factory: Callable[..., RunningServer]) -> RestClient:
    return svc_server_factory("--disable-admission-plugins=ServiceAccount").client()


def _class(client: RestClient, name: str, value: int, **fields: Any) -> None:
    body = {"apiVersion": "scheduling.svc/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}
    response = client.request("POST", CLASSES, body={**body, **fields})
    assert response.status == 201, response.body


def test_class_gives_the_pod_its_priority_and_policy(client: RestClient) -> None:
    _class(client, "high", 1000, preemptionPolicy="Never")
    spec = created(client, "pods", pod("p", priorityClassName="high"))["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (1000, "Never")


def test_without_a_default_class_priority_is_zero(client: RestClient) -> None:
    spec = created(client, "pods", pod())["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    assert "priorityClassName" not in spec


def test_global_default_class_applies_to_pods_without_one(client: RestClient) -> None:
    _class(client, "normal", 10, globalDefault=True)
    spec = created(client, "pods", pod())["spec"]
    assert (spec["priorityClassName"], spec["priority"]) == ("normal", 10)


def test_unknown_class_is_forbidden(client: RestClient) -> None:
    response = create(client, "pods", pod("p", priorityClassName="nope"))
    assert response.status == 403
    assert response.json()["message"] == 'pods "p" is forbidden: no PriorityClass with name nope was found'


def test_priority_given_in_the_pod_must_match_its_class(client: RestClient) -> None:
    response = create(client, "pods", pod("p", priority=7))
    assert response.json()["message"] == (
        'pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority '
        "admission controller computed 0 from the given PriorityClass name"
    )


def test_second_global_default_is_forbidden(client: RestClient) -> None:
    _class(client, "first", 10, globalDefault=True)
    response = client.request(
        "POST",
        CLASSES,
        body={
            "apiVersion": "scheduling.svc/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "second"},
            "value": 5,
            "globalDefault": True,
        },
    )
    assert response.status == 403
    assert response.json()["message"] == (
        'priorityclasses.scheduling.svc "second" is forbidden: PriorityClass first is already marked as default. '
        "Only one default can exist"
    )


def test_system_classes_exist_and_resolve(client: RestClient) -> None:
    listed = client.request("GET", CLASSES).json()["items"]
    assert {(c["metadata"]["name"], c["value"]) for c in listed} == {
        ("system-node-critical", 2000001000),
        ("system-cluster-critical", 2000000000),
    }
    assert created(client, "pods", pod("p", priorityClassName="system-node-critical"))["spec"]["priority"] == 2000001000
