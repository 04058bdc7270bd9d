"""Cascading deletion by owner references (the garbage collector in svc-controller-manager, beside
a real API server): orphan, foreground and background policies."""

from __future__ import annotations

import time

import pytest

PATH = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def api(svc_server, svc_controller_manager):
    svc_controller_manager(svc_server, "--controllers=garbage-collector-controller")
    return svc_server.client()


def _owner_and_dependent(api, *, block: bool = False) -> dict:
    owner = api.request(
        "POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}}
    ).json()
    reference = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}
    if block:
        reference["blockOwnerDeletion"] = True
    dependent = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "dependent", "ownerReferences": [reference]},
    }
    api.request("POST", PATH, body=dependent)
    return owner


def _eventually(check, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def _gone(api, name: str) -> bool:
    return api.request("GET", f"{PATH}/{name}").status == 404


def test_background_deletes_dependents_after_owner(api) -> None:
    _owner_and_dependent(api)
    api.request("DELETE", f"{PATH}/owner", body={"propagationPolicy": "Background"})
    assert _gone(api, "owner")
    assert _eventually(lambda: _gone(api, "dependent"))


def test_orphan_keeps_dependents_without_owner_reference(api) -> None:
    _owner_and_dependent(api)
    api.request("DELETE", f"{PATH}/owner", body={"propagationPolicy": "Orphan"})
    assert _eventually(lambda: _gone(api, "owner"))
    dependent = api.request("GET", f"{PATH}/dependent").json()
    assert "ownerReferences" not in dependent["metadata"]


def test_foreground_deletes_blocking_dependents_first(api) -> None:
    _owner_and_dependent(api, block=True)
    response = api.request("DELETE", f"{PATH}/owner", body={"propagationPolicy": "Foreground"})
    assert response.json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert _eventually(lambda: _gone(api, "owner"))
    assert _gone(api, "dependent")


def test_object_whose_owner_is_missing_is_collected(api) -> None:
    reference = {"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost", "uid": "no-such-uid"}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "stray", "ownerReferences": [reference]}}
    api.request("POST", PATH, body=body)
    assert _eventually(lambda: _gone(api, "stray"))


def test_a_live_owner_keeps_its_dependent(api) -> None:
    _owner_and_dependent(api)
    time_to_act = _eventually(lambda: _gone(api, "dependent"), seconds=1.0)
    assert not time_to_act


def test_a_dependent_listed_before_its_owner_is_not_collected(api) -> None:
    """The owner is checked live, not from the caches: a dependent naming an owner of another
    resource (whose informer may lag) survives."""
    secret = api.request(
        "POST",
        "/api/v1/namespaces/default/secrets",
        body={"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "o"}},
    ).json()
    reference = {"apiVersion": "v1", "kind": "Secret", "name": "o", "uid": secret["metadata"]["uid"]}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dependent", "ownerReferences": [reference]}}
    api.request("POST", PATH, body=body)
    assert not _eventually(lambda: _gone(api, "dependent"), seconds=1.0)
    api.request("DELETE", "/api/v1/namespaces/default/secrets/o")
    assert _eventually(lambda: _gone(api, "dependent"))


def test_a_cluster_scoped_object_naming_a_namespaced_owner_is_kept_and_reported(api) -> None:
    owner = api.request("POST", PATH, body={"metadata": {"name": "owner"}}).json()
    reference = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}
    roles = "/apis/rbac.authorization.svc/v1/clusterroles"
    role = {"metadata": {"name": "stray", "ownerReferences": [reference]}}
    assert api.request("POST", roles, body=role).status == 201

    def reported() -> bool:
        events = api.request("GET", "/api/v1/namespaces/default/events").json()["items"]
        return any(e["reason"] == "OwnerRefInvalidNamespace" and e["involvedObject"]["name"] == "stray" for e in events)

    assert _eventually(reported)
    assert api.request("GET", f"{roles}/stray").status == 200
