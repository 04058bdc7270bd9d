"""Properties of PATCH over HTTP: JSON patch and merge patch agree with their references, and a
repeated apply changes nothing."""

from __future__ import annotations

import copy

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svc.machinery.patch.merge import apply_merge_patch

PATH = "/api/v1/namespaces/default/configmaps"
keys = st.text("abcd", min_size=1, max_size=3)
values = st.one_of(st.none(), st.text("xyz", max_size=3))
settings_ = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


def _fresh(api, name: str, data: dict) -> dict:
    api.request("DELETE", f"{PATH}/{name}")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
    return api.request("POST", PATH, body=body).json()


@settings_
@given(
    data=st.dictionaries(keys, st.text("xyz", max_size=3), max_size=4), patch=st.dictionaries(keys, values, max_size=4)
)
def test_merge_patch_agrees_with_rfc7386(svc_server, data, patch) -> None:
    api = svc_server.client()
    created = _fresh(api, "merge", data)
    response = api.request("PATCH", f"{PATH}/merge", body={"data": patch}, content_type="application/merge-patch+json")
    expected = apply_merge_patch({"data": copy.deepcopy(created.get("data", {}))}, {"data": patch})["data"]
    assert response.json().get("data", {}) == expected


@settings_
@given(data=st.dictionaries(keys, st.text("xyz", max_size=3), min_size=1, max_size=4), value=st.text("xyz", max_size=3))
def test_json_patch_agrees_with_reference(svc_server, data, value) -> None:
    api = svc_server.client()
    created = _fresh(api, "jp", data)
    key = sorted(data)[0]
    operations = [
        {"op": "test", "path": f"/data/{key}", "value": data[key]},
        {"op": "replace", "path": f"/data/{key}", "value": value},
    ]
    response = api.request("PATCH", f"{PATH}/jp", body=operations, content_type="application/json-patch+json")
    expected = jsonpatch.apply_patch({"data": created["data"]}, operations)["data"]
    assert response.json()["data"] == expected


def test_failed_json_patch_test_is_422_and_changes_nothing(svc_server) -> None:
    api = svc_server.client()
    created = _fresh(api, "jp", {"a": "1"})
    operations = [{"op": "test", "path": "/data/a", "value": "2"}, {"op": "replace", "path": "/data/a", "value": "3"}]
    response = api.request("PATCH", f"{PATH}/jp", body=operations, content_type="application/json-patch+json")
    assert response.status == 422
    assert (
        api.request("GET", f"{PATH}/jp").json()["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    )


@pytest.mark.parametrize(
    "operation", [{"op": "add", "path": "data", "value": "x"}, {"op": "move", "from": "x", "path": "/a"}]
)
def test_json_patch_path_that_is_no_pointer_is_422(svc_server, operation) -> None:
    api = svc_server.client()
    _fresh(api, "np", {"a": "1"})
    response = api.request("PATCH", f"{PATH}/np", body=[operation], content_type="application/json-patch+json")
    assert response.status == 422
    assert response.json()["reason"] == "Invalid"


@settings_
@given(data=st.dictionaries(keys, st.text("xyz", max_size=3), min_size=1, max_size=4))
def test_applying_twice_creates_no_new_version(svc_server, data) -> None:
    """At least one key: storage drops an empty `data` map (Go's omitempty), so re-applying `data: {}`
    differs from the live object and stamps a new time, as upstream, whenever a second has passed."""
    api = svc_server.client()
    api.request("DELETE", f"{PATH}/applied")
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"}, "data": data}
    params = {"fieldManager": "prop"}
    first = api.request(
        "PATCH", f"{PATH}/applied", body=config, params=params, content_type="application/apply-patch+yaml"
    )
    second = api.request(
        "PATCH", f"{PATH}/applied", body=config, params=params, content_type="application/apply-patch+yaml"
    )
    assert first.json()["metadata"]["resourceVersion"] == second.json()["metadata"]["resourceVersion"]


def test_conditional_patch_on_stale_version_is_409(svc_server) -> None:
    api = svc_server.client()
    created = _fresh(api, "cond", {"a": "1"})
    api.request("PATCH", f"{PATH}/cond", body={"data": {"a": "2"}}, content_type="application/merge-patch+json")
    stale = {"metadata": {"resourceVersion": created["metadata"]["resourceVersion"]}, "data": {"a": "3"}}
    response = api.request("PATCH", f"{PATH}/cond", body=stale, content_type="application/merge-patch+json")
    assert response.status == 409


def test_strategic_patch_on_unsupported_type_is_415(svc_server) -> None:
    api = svc_server.client()
    _fresh(api, "smp", {"a": "1"})
    response = api.request(
        "PATCH", f"{PATH}/smp", body={"data": {"a": "2"}}, content_type="application/x-unknown-patch"
    )
    assert response.status == 415


def test_apply_creating_with_a_null_struct_field_defaults_it(svc_server) -> None:
    """The merged result is converted to the kind's struct upstream: a null spec is an unset, defaulted one."""
    api = svc_server.client()
    config = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "applied-ns"}, "spec": None}
    response = api.request(
        "PATCH",
        "/api/v1/namespaces/applied-ns",
        body=config,
        params={"fieldManager": "prop"},
        content_type="application/apply-patch+yaml",
    )
    assert response.status == 201, response.body
    assert response.json()["spec"] == {"finalizers": ["svc"]}
