"""REST basics over raw HTTP under the default `svc` profile, checking the spec's identifiers."""

from __future__ import annotations

import pytest


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _configmap(name: str, **metadata) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, **metadata},
        "data": {"k": "v"},
    }


def test_create_returns_201_with_server_set_fields(api) -> None:
    response = api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("one"))
    assert response.status == 201
    metadata = response.json()["metadata"]
    assert metadata["namespace"] == "default"
    assert len(metadata["uid"]) == 36
    assert metadata["creationTimestamp"].endswith("Z")
    assert metadata["resourceVersion"].isdigit() and not metadata["resourceVersion"].startswith("0")


def test_get_list_update_delete_round_trip(api) -> None:
    created = api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("two")).json()
    fetched = api.request("GET", "/api/v1/namespaces/default/configmaps/two").json()
    assert fetched == created
    listed = api.request("GET", "/api/v1/namespaces/default/configmaps").json()
    assert listed["kind"] == "ConfigMapList" and listed["apiVersion"] == "v1"
    assert [item["metadata"]["name"] for item in listed["items"]] == ["two"]
    fetched["data"] = {"k": "changed"}
    updated = api.request("PUT", "/api/v1/namespaces/default/configmaps/two", body=fetched)
    assert updated.status == 200
    assert int(updated.json()["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    deleted = api.request("DELETE", "/api/v1/namespaces/default/configmaps/two")
    assert deleted.status == 200
    assert deleted.json()["status"] == "Success"
    assert deleted.json()["details"] == {
        "name": "two",
        "kind": "configmaps",
        "uid": created["metadata"]["uid"],
    }


def test_missing_object_is_404_status(api) -> None:
    response = api.request("GET", "/apis/apps/v1/namespaces/default/deployments/nope")
    assert response.status == 404
    assert response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'deployments.apps "nope" not found',
        "reason": "NotFound",
        "details": {"name": "nope", "group": "apps", "kind": "deployments"},
        "code": 404,
    }


def test_stale_update_is_409(api) -> None:
    created = api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("three")).json()
    api.request("PUT", "/api/v1/namespaces/default/configmaps/three", body={**created, "data": {"k": "1"}})
    stale = api.request("PUT", "/api/v1/namespaces/default/configmaps/three", body={**created, "data": {"k": "2"}})
    assert stale.status == 409
    assert stale.json()["reason"] == "Conflict"
    assert "the object has been modified" in stale.json()["message"]


def test_duplicate_create_is_409_already_exists(api) -> None:
    api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("dup"))
    again = api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("dup"))
    assert again.status == 409
    assert again.json()["reason"] == "AlreadyExists"
    assert again.json()["message"] == 'configmaps "dup" already exists'


def test_group_suffix_is_branded(api) -> None:
    groups = {group["name"] for group in api.request("GET", "/apis").json()["groups"]}
    assert "rbac.authorization.svc" in groups
    assert "rbac.authorization.k8s.io" not in groups
    role = {
        "apiVersion": "rbac.authorization.svc/v1",
        "kind": "Role",
        "metadata": {"name": "reader"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
    }
    created = api.request("POST", "/apis/rbac.authorization.svc/v1/namespaces/default/roles", body=role)
    assert created.status == 201
    assert created.json()["apiVersion"] == "rbac.authorization.svc/v1"


def test_system_namespaces_use_the_brand(api) -> None:
    names = {item["metadata"]["name"] for item in api.request("GET", "/api/v1/namespaces").json()["items"]}
    assert {"default", "svc-system", "svc-public", "svc-node-lease"} <= names
    namespace = api.request("GET", "/api/v1/namespaces/default").json()
    assert namespace["spec"]["finalizers"] == ["svc"]
    assert namespace["metadata"]["labels"] == {"svc.io/metadata.name": "default"}


def test_table_view_uses_meta_svc(api) -> None:
    api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("tabled"))
    response = api.request(
        "GET", "/api/v1/namespaces/default/configmaps", accept="application/json;as=Table;g=meta.svc;v=v1"
    )
    assert response.status == 200
    table = response.json()
    assert (table["kind"], table["apiVersion"]) == ("Table", "meta.svc/v1")
    assert [column["name"] for column in table["columnDefinitions"]][:1] == ["Name"]
    assert table["rows"][0]["cells"][0] == "tabled"
    upstream = api.request(
        "GET", "/api/v1/namespaces/default/configmaps", accept="application/json;as=Table;g=meta.k8s.io;v=v1"
    )
    assert upstream.status == 406


def test_generate_name(api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}}
    created = api.request("POST", "/api/v1/namespaces/default/configmaps", body=body).json()
    name = created["metadata"]["name"]
    assert name.startswith("gen-") and len(name) == len("gen-") + 5


def test_cluster_scoped_and_all_namespaces_list(api) -> None:
    api.request(
        "POST",
        "/api/v1/namespaces",
        body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}},
    )
    api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("a"))
    api.request("POST", "/api/v1/namespaces/other/configmaps", body=_configmap("b"))
    listed = api.request("GET", "/api/v1/configmaps").json()
    assert sorted((i["metadata"]["namespace"], i["metadata"]["name"]) for i in listed["items"]) == [
        ("default", "a"),
        ("other", "b"),
        ("svc-system", "extension-apiserver-authentication"),
        ("svc-system", "svc-apiserver-legacy-service-account-token-tracking"),
    ]


def test_generation_bumps_on_spec_change_only(api) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        },
    }
    created = api.request("POST", "/apis/apps/v1/namespaces/default/deployments", body=deployment).json()
    assert created["metadata"]["generation"] == 1
    created["metadata"]["labels"] = {"a": "b"}
    relabeled = api.request("PUT", "/apis/apps/v1/namespaces/default/deployments/web", body=created).json()
    assert relabeled["metadata"]["generation"] == 1
    relabeled["spec"]["replicas"] = 3
    scaled = api.request("PUT", "/apis/apps/v1/namespaces/default/deployments/web", body=relabeled).json()
    assert scaled["metadata"]["generation"] == 2


def test_status_subresource_splits_spec_and_status(api) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "split"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "s"}},
            "template": {
                "metadata": {"labels": {"app": "s"}},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        },
        "status": {"replicas": 7},
    }
    created = api.request("POST", "/apis/apps/v1/namespaces/default/deployments", body=deployment).json()
    assert created["status"] == {}
    created["status"] = {"replicas": 5}
    created["spec"]["replicas"] = 9
    via_status = api.request("PUT", "/apis/apps/v1/namespaces/default/deployments/split/status", body=created).json()
    assert via_status["status"] == {"replicas": 5}
    assert via_status["spec"]["replicas"] == 1
    via_status["status"] = {"replicas": 0}
    via_status["spec"]["replicas"] = 4
    via_main = api.request("PUT", "/apis/apps/v1/namespaces/default/deployments/split", body=via_status).json()
    assert via_main["status"] == {"replicas": 5}
    assert via_main["spec"]["replicas"] == 4


def test_scale_subresource(api) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "scaled"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "s"}},
            "template": {
                "metadata": {"labels": {"app": "s"}},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        },
    }
    api.request("POST", "/apis/apps/v1/namespaces/default/deployments", body=deployment)
    scale = api.request("GET", "/apis/apps/v1/namespaces/default/deployments/scaled/scale").json()
    assert (scale["kind"], scale["apiVersion"]) == ("Scale", "autoscaling/v1")
    assert scale["spec"] == {"replicas": 1}
    assert scale["status"]["selector"] == "app=s"
    scale["spec"]["replicas"] = 4
    assert api.request("PUT", "/apis/apps/v1/namespaces/default/deployments/scaled/scale", body=scale).status == 200
    assert api.request("GET", "/apis/apps/v1/namespaces/default/deployments/scaled").json()["spec"]["replicas"] == 4


def test_label_and_field_selectors(api) -> None:
    api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("x1", labels={"tier": "a"}))
    api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("x2", labels={"tier": "b"}))
    by_label = api.request("GET", "/api/v1/namespaces/default/configmaps", params={"labelSelector": "tier in (b)"})
    assert [i["metadata"]["name"] for i in by_label.json()["items"]] == ["x2"]
    by_field = api.request(
        "GET", "/api/v1/namespaces/default/configmaps", params={"fieldSelector": "metadata.name!=x2"}
    )
    assert [i["metadata"]["name"] for i in by_field.json()["items"]] == ["x1"]
    unsupported = api.request("GET", "/api/v1/namespaces/default/configmaps", params={"fieldSelector": "data.k=v"})
    assert unsupported.status == 400
    assert unsupported.json()["message"] == "field label not supported: data.k"


def test_deletecollection_with_selector(api) -> None:
    api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("d1", labels={"gone": "yes"}))
    api.request("POST", "/api/v1/namespaces/default/configmaps", body=_configmap("d2"))
    response = api.request("DELETE", "/api/v1/namespaces/default/configmaps", params={"labelSelector": "gone=yes"})
    assert response.status == 200
    assert [i["metadata"]["name"] for i in response.json()["items"]] == ["d1"]
    remaining = api.request("GET", "/api/v1/namespaces/default/configmaps").json()["items"]
    assert [i["metadata"]["name"] for i in remaining] == ["d2"]


def test_create_on_update_where_upstream_allows_it(api) -> None:
    lease = {"apiVersion": "coordination.svc/v1", "kind": "Lease", "metadata": {"name": "l"}, "spec": {}}
    created = api.request("PUT", "/apis/coordination.svc/v1/namespaces/default/leases/l", body=lease)
    assert created.status == 201
    configmap = _configmap("not-created")
    refused = api.request("PUT", "/api/v1/namespaces/default/configmaps/not-created", body=configmap)
    assert refused.status == 404
