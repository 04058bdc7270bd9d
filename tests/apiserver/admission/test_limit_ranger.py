"""LimitRanger: defaults from Container items, and min/max/ratio checks with upstream's messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import create, created, pod

Obj = dict[str, Any]


@pytest.fixture
def client(svc_server_factory: Callable[..., RunningServer]) -> RestClient:
    return svc_server_factory("--disable-admission-plugins=ServiceAccount").client()


def _limit_range(client: RestClient, *items: Obj) -> None:
    body = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr"}, "spec": {"limits": list(items)}}
    created(client, "limitranges", body)


def _container(**resources: dict[str, str]) -> Obj:
    return {"name": "c", "image": "nginx", "resources": resources}


def test_defaults_fill_missing_requests_and_limits_and_are_annotated(client: RestClient) -> None:
    _limit_range(
        client, {"type": "Container", "default": {"cpu": "500m", "memory": "256Mi"}, "defaultRequest": {"cpu": "100m"}}
    )
    stored = created(client, "pods", pod("p", _container(limits={"memory": "1Gi"})))
    assert stored["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m", "memory": "1Gi"},
        "requests": {"cpu": "100m", "memory": "1Gi"},
    }
    assert stored["metadata"]["annotations"]["svc.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu request for container c; cpu limit for container c"
    )


def test_request_below_min_is_forbidden(client: RestClient) -> None:
    _limit_range(client, {"type": "Container", "min": {"cpu": "200m"}})
    response = create(client, "pods", pod("p", _container(requests={"cpu": "100m"})))
    assert response.status == 403
    assert (
        response.json()["message"]
        == 'pods "p" is forbidden: minimum cpu usage per Container is 200m, but request is 100m'
    )


def test_limit_above_max_is_forbidden(client: RestClient) -> None:
    _limit_range(client, {"type": "Container", "max": {"memory": "1Gi"}})
    response = create(client, "pods", pod("p", _container(limits={"memory": "2Gi"})))
    assert (
        response.json()["message"]
        == 'pods "p" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi'
    )


def test_container_max_defaults_the_limit(client: RestClient) -> None:
    _limit_range(client, {"type": "Container", "max": {"memory": "1Gi"}})
    assert created(client, "pods", pod())["spec"]["containers"][0]["resources"]["limits"] == {"memory": "1Gi"}


def test_missing_limit_under_a_pod_max_is_forbidden(client: RestClient) -> None:
    _limit_range(client, {"type": "Pod", "max": {"memory": "1Gi"}})
    response = create(client, "pods", pod())
    assert response.json()["message"] == (
        'pods "p" is forbidden: maximum memory usage per Pod is 1Gi.  No limit is specified'
    )


def test_limit_to_request_ratio_is_bounded(client: RestClient) -> None:
    _limit_range(client, {"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}})
    response = create(client, "pods", pod("p", _container(requests={"cpu": "100m"}, limits={"cpu": "500m"})))
    assert response.json()["message"] == (
        'pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000'
    )


def test_pod_max_bounds_the_sum_of_containers(client: RestClient) -> None:
    _limit_range(client, {"type": "Pod", "max": {"cpu": "1"}})
    one = {"name": "a", "image": "nginx", "resources": {"limits": {"cpu": "600m"}}}
    two = {"name": "b", "image": "nginx", "resources": {"limits": {"cpu": "600m"}}}
    response = create(client, "pods", pod("p", one, two))
    assert response.json()["message"] == 'pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m'


def test_claim_storage_is_bounded(client: RestClient) -> None:
    _limit_range(client, {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "5Gi"}})
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "big"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}},
    }
    response = create(client, "persistentvolumeclaims", claim)
    assert response.status == 403
    assert response.json()["message"] == (
        'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, '
        "but request is 10Gi"
    )
