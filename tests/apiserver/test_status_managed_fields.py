"""Writes through the status subresource record their manager in `managedFields` (with
`subresource: status`), as upstream's field manager does for every subresource write."""

from __future__ import annotations

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
    },
}


def _entries(obj: dict) -> dict:
    return {(entry["manager"], entry.get("subresource")): entry for entry in obj["metadata"]["managedFields"]}


def test_an_apply_to_status_is_owned_by_its_manager(svc_server) -> None:
    client = svc_server.client()
    assert client.request("POST", DEPLOYMENTS, body=DEPLOYMENT).status == 201
    applied = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "status": {"replicas": 2}}
    response = client.request(
        "PATCH",
        f"{DEPLOYMENTS}/web/status",
        body=applied,
        params={"fieldManager": "rollout-tracker", "force": "true"},
        content_type="application/apply-patch+yaml",
    )
    assert response.status == 200, response.json()
    entry = _entries(response.json())[("rollout-tracker", "status")]
    assert entry["operation"] == "Apply"
    assert entry["fieldsV1"] == {"f:status": {"f:replicas": {}}}
    stored = client.request("GET", f"{DEPLOYMENTS}/web").json()
    assert ("rollout-tracker", "status") in _entries(stored)


def test_a_patch_to_status_is_recorded_as_an_update_of_the_subresource(svc_server) -> None:
    client = svc_server.client()
    assert client.request("POST", DEPLOYMENTS, body=DEPLOYMENT).status == 201
    response = client.request(
        "PATCH",
        f"{DEPLOYMENTS}/web/status",
        body={"status": {"observedGeneration": 1}},
        params={"fieldManager": "watcher"},
        content_type="application/merge-patch+json",
    )
    assert response.status == 200
    entry = _entries(response.json())[("watcher", "status")]
    assert entry["operation"] == "Update"
    assert entry["fieldsV1"] == {"f:status": {"f:observedGeneration": {}}}
