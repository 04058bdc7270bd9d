"""Writes through `/scale` own the parent's replica count (issue 12 part 6): upstream tracks the write on
the Scale object, whose owners of `spec.replicas` become the parent's owners of `.spec.replicas`, under
the subresource `scale` and in the parent's API version (managedfields `ScaleHandler`)."""

from __future__ import annotations

import pytest

from tests.apiserver.test_scale_generation import WORKLOADS

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"


def _scale_body(replicas: int) -> dict:
    return {"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": {"name": "w"}, "spec": {"replicas": replicas}}


def _replicas_owners(client, path: str) -> dict[str, dict]:
    """The managers owning `.spec.replicas`, by name."""
    stored = client.request("GET", path).json()
    owners = {}
    for entry in stored["metadata"].get("managedFields", []):
        if "f:replicas" in entry.get("fieldsV1", {}).get("f:spec", {}):
            owners[entry["manager"]] = entry
    return owners


def _apply(client, path: str, body: dict, manager: str, *, force: bool = False):
    query = f"?fieldManager={manager}" + ("&force=true" if force else "")
    return client.request("PATCH", path + query, body=body, content_type=APPLY)


@pytest.fixture
def workload(svc_server, request):
    base, plural, kind, spec = request.param
    client = svc_server.client()
    path = f"{base}/namespaces/default/{plural}/w"
    body = {
        "apiVersion": base.removeprefix("/apis/").removeprefix("/api/"),
        "kind": kind,
        "metadata": {"name": "w"},
        "spec": {"replicas": 1, **spec},
    }
    answer = _apply(client, path, body, "apply_test")
    assert answer.status == 201, answer.body
    return client, path, body


@pytest.mark.parametrize("workload", WORKLOADS, ids=[w[1] for w in WORKLOADS], indirect=True)
def test_a_merge_patch_to_scale_makes_its_manager_the_only_owner_of_replicas(workload) -> None:
    client, path, _ = workload
    answer = client.request(
        "PATCH", f"{path}/scale?fieldManager=scale_test", body={"spec": {"replicas": 5}}, content_type=MERGE
    )
    assert answer.status == 200, answer.body
    owners = _replicas_owners(client, path)
    assert list(owners) == ["scale_test"]
    entry = owners["scale_test"]
    api_version = path.split("/namespaces/")[0].removeprefix("/apis/").removeprefix("/api/")
    assert entry == {
        "manager": "scale_test",
        "operation": "Update",
        "apiVersion": api_version,
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:replicas": {}}},
        "subresource": "scale",
    }
    applier = [
        e for e in client.request("GET", path).json()["metadata"]["managedFields"] if e["manager"] == "apply_test"
    ]
    assert "f:replicas" not in applier[0]["fieldsV1"]["f:spec"]


@pytest.mark.parametrize("workload", WORKLOADS, ids=[w[1] for w in WORKLOADS], indirect=True)
def test_apply_conflicts_move_replicas_between_the_parent_and_scale(workload) -> None:
    client, path, body = workload
    assert (
        client.request(
            "PATCH", f"{path}/scale?fieldManager=scale_test", body={"spec": {"replicas": 5}}, content_type=MERGE
        ).status
        == 200
    )
    assert _apply(client, path, body, "apply_test").status == 409
    assert _apply(client, path, body, "apply_test", force=True).status == 200
    assert list(_replicas_owners(client, path)) == ["apply_test"]

    refused = _apply(client, f"{path}/scale", _scale_body(17), "apply_scale")
    assert refused.status == 409
    assert refused.json()["details"]["causes"] == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "apply_test"', "field": ".spec.replicas"}
    ]
    answer = _apply(client, f"{path}/scale", _scale_body(17), "apply_scale", force=True)
    assert answer.status == 200, answer.body
    assert answer.json()["spec"] == {"replicas": 17}
    owners = _replicas_owners(client, path)
    assert list(owners) == ["apply_scale"]
    assert (owners["apply_scale"]["operation"], owners["apply_scale"]["subresource"]) == ("Apply", "scale")


@pytest.mark.parametrize("workload", WORKLOADS[:1], ids=["deployments"], indirect=True)
def test_a_put_then_an_equal_apply_to_scale_share_replicas_and_a_later_scale_takes_them(workload) -> None:
    client, path, _ = workload
    assert client.request("PUT", f"{path}/scale?fieldManager=replace_test", body=_scale_body(7)).status == 200
    assert list(_replicas_owners(client, path)) == ["replace_test"]
    assert _apply(client, f"{path}/scale", _scale_body(7), "co_owning_test").status == 200
    assert sorted(_replicas_owners(client, path)) == ["co_owning_test", "replace_test"]
    scaled = client.request(
        "PATCH", f"{path}/scale?fieldManager=scale_test", body={"spec": {"replicas": 5}}, content_type=MERGE
    )
    assert scaled.status == 200
    assert list(_replicas_owners(client, path)) == ["scale_test"]
    assert client.request("GET", path).json()["spec"]["replicas"] == 5


@pytest.mark.parametrize("workload", WORKLOADS[:1], ids=["deployments"], indirect=True)
def test_a_scale_write_of_status_only_owns_nothing_of_the_parent(workload) -> None:
    client, path, _ = workload
    answer = client.request(
        "PATCH", f"{path}/scale?fieldManager=scale_test", body={"status": {"replicas": 42}}, content_type=MERGE
    )
    assert answer.status == 200, answer.body
    assert list(_replicas_owners(client, path)) == ["apply_test"]
    managers = [e["manager"] for e in client.request("GET", path).json()["metadata"]["managedFields"]]
    assert "scale_test" not in managers
