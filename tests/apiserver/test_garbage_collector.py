"""Cascading deletion by owner references: orphan, foreground and background policies."""

from __future__ import annotations

import time

import pytest

PATH = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _owner_and_dependent(api) -> dict:
    owner = api.request(
        "POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}}
    ).json()
    reference = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}
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


def test_foreground_deletes_dependents_first(api) -> None:
    _owner_and_dependent(api)
    response = api.request("DELETE", f"{PATH}/owner", body={"propagationPolicy": "Foreground"})
    assert response.json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert _eventually(lambda: _gone(api, "owner"))
    assert _gone(api, "dependent")


def test_object_whose_owner_is_missing_is_collected(api) -> None:
    reference = {"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost", "uid": "no-such-uid"}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "stray", "ownerReferences": [reference]}}
    api.request("POST", PATH, body=body)
    assert _eventually(lambda: _gone(api, "stray"))
