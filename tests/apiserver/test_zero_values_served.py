"""Status fields Go writes without `omitempty` come back (and are stored) with their zero value."""

from __future__ import annotations

import pytest

from tests.builtin_objects import manifest


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _create(api, path: str, api_version: str, kind: str) -> dict:
    response = api.request("POST", path, body=manifest(api_version, kind))
    assert response.status == 201, response.body
    return response.json()


def test_a_created_service_has_an_empty_load_balancer_status(api) -> None:
    created = _create(api, "/api/v1/namespaces/default/services", "v1", "Service")
    assert created["status"] == {"loadBalancer": {}}


def test_a_created_disruption_budget_has_its_counters(api) -> None:
    path = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
    _create(api, path, "policy/v1", "PodDisruptionBudget")
    stored = api.request("GET", path + "/demo").json()
    assert stored["status"] == {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}


def test_a_status_written_without_replicas_is_stored_with_zero(api) -> None:
    path = "/apis/apps/v1/namespaces/default/replicasets"
    created = _create(api, path, "apps/v1", "ReplicaSet")
    written = api.request("PUT", path + "/demo/status", body={**created, "status": {"observedGeneration": 1}})
    assert written.status == 200, written.body
    assert api.request("GET", path + "/demo").json()["status"] == {"observedGeneration": 1, "replicas": 0}
