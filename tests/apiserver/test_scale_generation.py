"""A replica change through `/scale` moves `metadata.generation` as a spec change does (issue 12 part 6)."""

from __future__ import annotations

import pytest

MERGE = "application/merge-patch+json"
_TEMPLATE = {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
_SELECTOR = {"matchLabels": {"app": "a"}}

WORKLOADS = [
    ("/apis/apps/v1", "deployments", "Deployment", {"selector": _SELECTOR, "template": _TEMPLATE}),
    ("/apis/apps/v1", "replicasets", "ReplicaSet", {"selector": _SELECTOR, "template": _TEMPLATE}),
    (
        "/apis/apps/v1",
        "statefulsets",
        "StatefulSet",
        {"selector": _SELECTOR, "template": _TEMPLATE, "serviceName": "s"},
    ),
    ("/api/v1", "replicationcontrollers", "ReplicationController", {"selector": {"app": "a"}, "template": _TEMPLATE}),
]


def _create(client, base: str, plural: str, kind: str, spec: dict) -> str:
    path = f"{base}/namespaces/default/{plural}"
    body = {
        "apiVersion": base.removeprefix("/apis/").removeprefix("/api/"),
        "kind": kind,
        "metadata": {"name": "w"},
        "spec": {"replicas": 1, **spec},
    }
    answer = client.request("POST", path, body=body)
    assert answer.status == 201, answer.body
    assert answer.json()["metadata"]["generation"] == 1
    return f"{path}/w"


@pytest.mark.parametrize(("base", "plural", "kind", "spec"), WORKLOADS, ids=[w[1] for w in WORKLOADS])
def test_a_put_to_scale_bumps_the_generation(svc_server, base, plural, kind, spec) -> None:
    client = svc_server.client()
    path = _create(client, base, plural, kind, spec)
    scale = client.request("GET", f"{path}/scale").json()
    scale["spec"]["replicas"] = 3
    assert client.request("PUT", f"{path}/scale", body=scale).status == 200
    stored = client.request("GET", path).json()
    assert stored["spec"]["replicas"] == 3
    assert stored["metadata"]["generation"] == 2


@pytest.mark.parametrize(("base", "plural", "kind", "spec"), WORKLOADS, ids=[w[1] for w in WORKLOADS])
def test_a_patch_of_scale_bumps_the_generation(svc_server, base, plural, kind, spec) -> None:
    client = svc_server.client()
    path = _create(client, base, plural, kind, spec)
    answer = client.request("PATCH", f"{path}/scale", body={"spec": {"replicas": 4}}, content_type=MERGE)
    assert answer.status == 200, answer.body
    assert client.request("GET", path).json()["metadata"]["generation"] == 2


def test_an_unchanged_replica_count_keeps_the_generation(svc_server) -> None:
    client = svc_server.client()
    path = _create(client, *WORKLOADS[0])
    scale = client.request("GET", f"{path}/scale").json()
    assert client.request("PUT", f"{path}/scale", body=scale).status == 200
    assert client.request("GET", path).json()["metadata"]["generation"] == 1
