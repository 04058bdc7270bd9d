"""ResourceQuota admission: usage charged at admission, upstream's `exceeded quota` 403, scopes, and no
overshoot under concurrent creators."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import core_path, create, created, pod

Obj = dict[str, Any]


@pytest.fixture
def server(svc_server_factory: Callable[..., RunningServer]) -> RunningServer:
    return svc_server_factory("--disable-admission-plugins=ServiceAccount")


def _quota(client: RestClient, name: str, hard: dict[str, str], **spec: Any) -> None:
    """A quota as the controller leaves it after its first sync: status.hard set, nothing used."""
    body = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": {"hard": hard, **spec}}
    stored = created(client, "resourcequotas", body)
    stored["status"] = {"hard": hard, "used": dict.fromkeys(hard, "0")}
    response = client.request("PUT", core_path("resourcequotas", name=name) + "/status", body=stored)
    assert response.status == 200, response.body


def _used(client: RestClient, name: str) -> dict[str, str]:
    return client.request("GET", core_path("resourcequotas", name=name)).json()["status"]["used"]


def _configmap(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}


def test_create_past_the_hard_limit_is_forbidden_with_upstreams_message(server: RunningServer) -> None:
    client = server.client()
    _quota(client, "q", {"count/configmaps": "1"})
    created(client, "configmaps", _configmap("a"))
    response = create(client, "configmaps", _configmap("b"))
    assert response.status == 403
    assert response.json()["message"] == (
        'configmaps "b" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=1, '
        "limited: count/configmaps=1"
    )


def test_usage_is_charged_at_admission(server: RunningServer) -> None:
    client = server.client()
    _quota(client, "q", {"pods": "5", "requests.cpu": "1", "limits.memory": "1Gi"})
    container = {
        "name": "c",
        "image": "nginx",
        "resources": {"requests": {"cpu": "250m"}, "limits": {"memory": "256Mi"}},
    }
    created(client, "pods", pod("p", container))
    assert _used(client, "q") == {"pods": "1", "requests.cpu": "250m", "limits.memory": "256Mi"}


def test_compute_quota_requires_each_container_to_request_it(server: RunningServer) -> None:
    client = server.client()
    _quota(client, "compute", {"requests.cpu": "1"})
    response = create(client, "pods", pod())
    assert (
        response.json()["message"] == 'pods "p" is forbidden: failed quota: compute: must specify requests.cpu for: c'
    )


def test_quota_without_status_does_not_take_part(server: RunningServer) -> None:
    client = server.client()
    body = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "new"},
        "spec": {"hard": {"configmaps": "0"}},
    }
    created(client, "resourcequotas", body)
    assert create(client, "configmaps", _configmap("a")).status == 201


def test_scoped_quota_only_counts_the_pods_it_selects(server: RunningServer) -> None:
    client = server.client()
    _quota(client, "best-effort", {"pods": "1"}, scopes=["BestEffort"])
    guaranteed = {"name": "c", "image": "nginx", "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}}
    created(client, "pods", pod("sized", guaranteed))
    created(client, "pods", pod("free-1"))
    response = create(client, "pods", pod("free-2"))
    assert response.status == 403
    assert "exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1" in response.json()["message"]


def test_priority_class_scope_selector(server: RunningServer) -> None:
    client = server.client()
    selector = {
        "matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["system-node-critical"]}]
    }
    _quota(client, "critical", {"pods": "0"}, scopeSelector=selector)
    created(client, "pods", pod("ordinary"))
    assert create(client, "pods", pod("critical", priorityClassName="system-node-critical")).status == 403


def test_dry_run_checks_without_charging(server: RunningServer) -> None:
    client = server.client()
    _quota(client, "q", {"configmaps": "1"})
    response = client.request("POST", core_path("configmaps"), body=_configmap("a"), params={"dryRun": "All"})
    assert response.status == 201
    assert _used(client, "q") == {"configmaps": "0"}


def test_twenty_concurrent_creators_never_exceed_the_hard_limit(server: RunningServer) -> None:
    _quota(server.client(), "q", {"count/configmaps": "5"})
    clients = [server.client() for _ in range(20)]

    def attempt(index: int) -> int:
        return create(clients[index], "configmaps", _configmap(f"cm-{index}")).status

    with ThreadPoolExecutor(max_workers=20) as pool:
        statuses = list(pool.map(attempt, range(20), timeout=60))
    assert sorted(statuses) == [201] * 5 + [403] * 15
    client = server.client()
    assert len(client.request("GET", core_path("configmaps")).json()["items"]) == 5
    assert _used(client, "q") == {"count/configmaps": "5"}
