"""Dry-run (spec 1 §4.7) and delete options (§3.1, §4.2): preconditions, propagation finalizers."""

from __future__ import annotations

import pytest

PATH = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _body(name: str, **metadata) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **metadata}, "data": {"a": "1"}}


def _names(api) -> list[str]:
    return [item["metadata"]["name"] for item in api.request("GET", PATH).json()["items"]]


def test_dry_run_create_stores_nothing(api) -> None:
    response = api.request("POST", PATH, body=_body("dry"), params={"dryRun": "All"})
    assert response.status == 201
    assert response.json()["metadata"]["name"] == "dry"
    assert "resourceVersion" not in response.json()["metadata"]
    assert _names(api) == []


def test_dry_run_without_value(api) -> None:
    response = api.request("POST", f"{PATH}?dryRun", body=_body("dry"))
    assert response.status == 201
    assert _names(api) == []


def test_dry_run_bad_value_is_400(api) -> None:
    response = api.request("POST", PATH, body=_body("dry"), params={"dryRun": "Yes"})
    assert response.status == 400
    assert _names(api) == []


def test_dry_run_update_patch_and_delete_change_nothing(api) -> None:
    created = api.request("POST", PATH, body=_body("kept")).json()
    version = created["metadata"]["resourceVersion"]
    updated = api.request("PUT", f"{PATH}/kept", body={**created, "data": {"a": "2"}}, params={"dryRun": "All"})
    assert updated.json()["data"] == {"a": "2"}
    patched = api.request(
        "PATCH",
        f"{PATH}/kept",
        body={"data": {"a": "3"}},
        params={"dryRun": "All"},
        content_type="application/merge-patch+json",
    )
    assert patched.json()["data"] == {"a": "3"}
    deleted = api.request("DELETE", f"{PATH}/kept", params={"dryRun": "All"})
    assert deleted.status == 200
    current = api.request("GET", f"{PATH}/kept").json()
    assert current["data"] == {"a": "1"}
    assert current["metadata"]["resourceVersion"] == version


def test_dry_run_deletecollection_keeps_everything(api) -> None:
    api.request("POST", PATH, body=_body("a"))
    api.request("POST", PATH, body=_body("b"))
    response = api.request("DELETE", PATH, params={"dryRun": "All"})
    assert response.status == 200
    assert _names(api) == ["a", "b"]


def test_dry_run_create_of_existing_is_409(api) -> None:
    api.request("POST", PATH, body=_body("twice"))
    response = api.request("POST", PATH, body=_body("twice"), params={"dryRun": "All"})
    assert response.status == 409


def test_uid_precondition(api) -> None:
    api.request("POST", PATH, body=_body("p"))
    response = api.request("DELETE", f"{PATH}/p", body={"preconditions": {"uid": "nope"}})
    assert response.status == 409
    assert "Precondition failed: UID in precondition: nope" in response.json()["message"]
    assert _names(api) == ["p"]


def test_resource_version_precondition(api) -> None:
    created = api.request("POST", PATH, body=_body("p")).json()
    stale = str(int(created["metadata"]["resourceVersion"]) - 1)
    response = api.request("DELETE", f"{PATH}/p", body={"preconditions": {"resourceVersion": stale}})
    assert response.status == 409
    ok = api.request(
        "DELETE", f"{PATH}/p", body={"preconditions": {"resourceVersion": created["metadata"]["resourceVersion"]}}
    )
    assert ok.status == 200


@pytest.mark.parametrize(("policy", "finalizer"), [("Orphan", "orphan"), ("Foreground", "foregroundDeletion")])
def test_propagation_policy_adds_gc_finalizer(svc_server_factory, policy, finalizer) -> None:
    api = svc_server_factory("--enable-garbage-collector=false").client()
    api.request("POST", PATH, body=_body("gc"))
    response = api.request("DELETE", f"{PATH}/gc", body={"propagationPolicy": policy})
    assert response.status == 200
    obj = api.request("GET", f"{PATH}/gc").json()
    assert obj["metadata"]["finalizers"] == [finalizer]
    assert "deletionTimestamp" in obj["metadata"]


def test_propagation_policy_in_query(svc_server_factory) -> None:
    api = svc_server_factory("--enable-garbage-collector=false").client()
    api.request("POST", PATH, body=_body("gc"))
    api.request("DELETE", f"{PATH}/gc", params={"propagationPolicy": "Orphan"})
    assert api.request("GET", f"{PATH}/gc").json()["metadata"]["finalizers"] == ["orphan"]


def test_orphan_dependents_false_is_202_when_not_gone(api) -> None:
    api.request("POST", PATH, body=_body("held", finalizers=["example.com/x"]))
    response = api.request("DELETE", f"{PATH}/held", body={"orphanDependents": False})
    assert response.status == 202


def test_background_removes_immediately(api) -> None:
    api.request("POST", PATH, body=_body("bg"))
    assert api.request("DELETE", f"{PATH}/bg", body={"propagationPolicy": "Background"}).status == 200
    assert api.request("GET", f"{PATH}/bg").status == 404


def test_bad_propagation_policy_is_400(api) -> None:
    api.request("POST", PATH, body=_body("x"))
    response = api.request("DELETE", f"{PATH}/x", body={"propagationPolicy": "Sideways"})
    assert response.status == 400
    assert _names(api) == ["x"]


def test_finalizer_removal_completes_deletion(api) -> None:
    api.request("POST", PATH, body=_body("held", finalizers=["example.com/a", "example.com/b"]))
    first = api.request("DELETE", f"{PATH}/held")
    assert first.status == 200
    assert first.json()["metadata"]["deletionTimestamp"]
    patch = {"metadata": {"finalizers": ["example.com/b"]}}
    api.request("PATCH", f"{PATH}/held", body=patch, content_type="application/merge-patch+json")
    assert api.request("GET", f"{PATH}/held").status == 200
    api.request(
        "PATCH", f"{PATH}/held", body={"metadata": {"finalizers": None}}, content_type="application/merge-patch+json"
    )
    assert api.request("GET", f"{PATH}/held").status == 404


def test_a_deleted_namespace_waits_terminating_for_the_namespace_controller(api) -> None:
    """Removing the content is the controller daemon's job (tests/controllers), as upstream's: the API
    server alone marks the namespace Terminating, refuses new content and keeps the namespace."""
    api.request(
        "POST", "/api/v1/namespaces", body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "doomed"}}
    )
    api.request("POST", "/api/v1/namespaces/doomed/configmaps", body=_body("inside"))
    deleted = api.request("DELETE", "/api/v1/namespaces/doomed")
    assert deleted.json()["status"]["phase"] == "Terminating"
    refused = api.request("POST", "/api/v1/namespaces/doomed/configmaps", body=_body("late"))
    assert refused.status == 403
    assert api.request("GET", "/api/v1/namespaces/doomed").json()["spec"]["finalizers"] == ["svc"]
    assert [
        item["metadata"]["name"] for item in api.request("GET", "/api/v1/namespaces/doomed/configmaps").json()["items"]
    ] == ["inside"]


def test_system_namespace_cannot_be_deleted(api) -> None:
    response = api.request("DELETE", "/api/v1/namespaces/svc-system")
    assert response.status == 403
    assert response.json()["message"] == 'namespaces "svc-system" is forbidden: this namespace may not be deleted'
