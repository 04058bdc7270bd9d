"""Every verb on a custom resource, through the generic store (issue 14, serving)."""

from __future__ import annotations

import json

import pytest

from tests.apiserver.crd.crds import WIDGETS, crd, install, widget

MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
PARTIAL = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"


@pytest.fixture
def client(svc_server_factory):
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    return client


def _create(client, name: str, **spec) -> dict:
    answer = client.request("POST", WIDGETS, body=widget(name, **spec))
    assert answer.status == 201, answer.body
    return answer.json()


def test_create_get_update_delete(client) -> None:
    created = _create(client, "a", color="red")
    assert created["metadata"]["generation"] == 1
    assert created["metadata"]["namespace"] == "default"
    got = client.request("GET", f"{WIDGETS}/a").json()
    assert got["spec"] == {"color": "red"}
    got["spec"]["color"] = "blue"
    updated = client.request("PUT", f"{WIDGETS}/a", body=got)
    assert updated.status == 200
    assert updated.json()["metadata"]["generation"] == 2
    deleted = client.request("DELETE", f"{WIDGETS}/a")
    assert deleted.status == 200
    assert deleted.json()["kind"] == "Widget"
    assert client.request("GET", f"{WIDGETS}/a").status == 404


def test_an_update_must_name_the_resource_version(client) -> None:
    _create(client, "a", color="red")
    answer = client.request("PUT", f"{WIDGETS}/a", body=widget("a", color="blue"))
    assert answer.status == 422
    assert answer.json()["message"] == (
        'widgets.example.com "a" is invalid: '
        "metadata.resourceVersion: Invalid value: 0: must be specified for an update"
    )


def test_list_pages_with_continue(client) -> None:
    for name in ("a", "b", "c"):
        _create(client, name)
    first = client.request("GET", WIDGETS, params={"limit": "2"}).json()
    assert [item["metadata"]["name"] for item in first["items"]] == ["a", "b"]
    assert first["kind"] == "WidgetList"
    token = first["metadata"]["continue"]
    rest = client.request("GET", WIDGETS, params={"limit": "2", "continue": token}).json()
    assert [item["metadata"]["name"] for item in rest["items"]] == ["c"]
    everywhere = client.request("GET", "/apis/example.com/v1/widgets").json()
    assert len(everywhere["items"]) == 3


def test_field_selectors_on_selectable_fields_and_names(client) -> None:
    _create(client, "a", color="red")
    _create(client, "b", color="blue")
    red = client.request("GET", WIDGETS, params={"fieldSelector": "spec.color=red"}).json()
    assert [item["metadata"]["name"] for item in red["items"]] == ["a"]
    named = client.request("GET", WIDGETS, params={"fieldSelector": "metadata.name=b"}).json()
    assert [item["metadata"]["name"] for item in named["items"]] == ["b"]
    refused = client.request("GET", WIDGETS, params={"fieldSelector": "spec.size=1"})
    assert refused.status == 400
    assert refused.json()["message"] == "field label not supported: spec.size"


def test_label_selector(client) -> None:
    labelled = widget("a")
    labelled["metadata"]["labels"] = {"tier": "front"}
    client.request("POST", WIDGETS, body=labelled)
    _create(client, "b")
    found = client.request("GET", WIDGETS, params={"labelSelector": "tier=front"}).json()
    assert [item["metadata"]["name"] for item in found["items"]] == ["a"]


def test_watch_sees_added_modified_deleted(client) -> None:
    listed = client.request("GET", WIDGETS).json()
    version = listed["metadata"]["resourceVersion"]
    _create(client, "a", color="red")
    client.request("PATCH", f"{WIDGETS}/a", body={"spec": {"color": "blue"}}, content_type=MERGE)
    client.request("DELETE", f"{WIDGETS}/a")
    answer = client.request("GET", WIDGETS, params={"watch": "1", "resourceVersion": version, "timeoutSeconds": "1"})
    events = [json.loads(line) for line in answer.body.splitlines() if line.strip()]
    assert [event["type"] for event in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert events[1]["object"]["spec"]["color"] == "blue"
    assert events[0]["object"]["kind"] == "Widget"


def test_merge_and_json_patches_apply(client) -> None:
    _create(client, "a", color="red", replicas=1)
    merged = client.request("PATCH", f"{WIDGETS}/a", body={"spec": {"color": "blue"}}, content_type=MERGE)
    assert merged.json()["spec"] == {"color": "blue", "replicas": 1}
    ops = [{"op": "replace", "path": "/spec/replicas", "value": 3}]
    patched = client.request("PATCH", f"{WIDGETS}/a", body=ops, content_type=JSON_PATCH)
    assert patched.json()["spec"]["replicas"] == 3


def test_strategic_merge_patch_is_unsupported(client) -> None:
    _create(client, "a")
    answer = client.request("PATCH", f"{WIDGETS}/a", body={"spec": {}}, content_type=STRATEGIC)
    assert answer.status == 415
    assert answer.json()["reason"] == "UnsupportedMediaType"
    assert "application/strategic-merge-patch+json" not in answer.json()["message"]


def test_server_side_apply_merges_list_map_entries_by_key(client) -> None:
    def apply(manager: str, port: dict) -> dict:
        config = widget("a", ports=[port])
        answer = client.request(
            "PATCH", f"{WIDGETS}/a", body=config, content_type=APPLY, params={"fieldManager": manager}
        )
        assert answer.status in (200, 201), answer.body
        return answer.json()

    apply("one", {"name": "http", "port": 80})
    result = apply("two", {"name": "https", "port": 443})
    assert result["spec"]["ports"] == [{"name": "http", "port": 80}, {"name": "https", "port": 443}]


def test_status_subresource_splits_spec_and_status(client) -> None:
    created = _create(client, "a", color="red")
    created["status"] = {"replicas": 5}
    created["spec"]["color"] = "blue"
    status = client.request("PUT", f"{WIDGETS}/a/status", body=created)
    assert status.status == 200, status.body
    body = status.json()
    assert body["status"] == {"replicas": 5}
    assert body["spec"]["color"] == "red"
    assert body["metadata"]["generation"] == 1
    body["status"] = {"replicas": 9}
    body["spec"]["color"] = "green"
    main = client.request("PUT", f"{WIDGETS}/a", body=body).json()
    assert main["status"] == {"replicas": 5}
    assert main["metadata"]["generation"] == 2


def test_created_status_is_dropped_when_status_is_a_subresource(client) -> None:
    body = widget("a")
    body["status"] = {"replicas": 3}
    created = client.request("POST", WIDGETS, body=body).json()
    assert "status" not in created


def test_scale_subresource_reads_and_writes_the_crd_paths(client) -> None:
    _create(client, "a", replicas=2)
    client.request(
        "PATCH",
        f"{WIDGETS}/a/status",
        body={"status": {"replicas": 1, "selector": "app=a"}},
        content_type=MERGE,
    )
    scale = client.request("GET", f"{WIDGETS}/a/scale").json()
    assert scale["apiVersion"] == "autoscaling/v1"
    assert scale["kind"] == "Scale"
    assert scale["spec"] == {"replicas": 2}
    assert scale["status"] == {"replicas": 1, "selector": "app=a"}
    scale["spec"]["replicas"] = 7
    assert client.request("PUT", f"{WIDGETS}/a/scale", body=scale).status == 200
    assert client.request("GET", f"{WIDGETS}/a").json()["spec"]["replicas"] == 7


def test_a_scale_write_owns_the_crd_replicas_path_in_the_custom_resources_version(client) -> None:
    applied = client.request(
        "PATCH", f"{WIDGETS}/a?fieldManager=creator", body=widget("a", replicas=2, color="red"), content_type=APPLY
    )
    assert applied.status == 201, applied.body
    scaled = client.request(
        "PATCH", f"{WIDGETS}/a/scale?fieldManager=scaler", body={"spec": {"replicas": 3}}, content_type=MERGE
    )
    assert scaled.status == 200, scaled.body
    entries = {e["manager"]: e for e in client.request("GET", f"{WIDGETS}/a").json()["metadata"]["managedFields"]}
    assert entries["creator"]["fieldsV1"] == {"f:spec": {"f:color": {}}}
    scaler = entries["scaler"]
    assert (scaler["operation"], scaler["apiVersion"], scaler["subresource"]) == ("Update", "example.com/v1", "scale")
    assert scaler["fieldsV1"] == {"f:spec": {"f:replicas": {}}}


def test_table_has_name_and_printer_columns(client) -> None:
    _create(client, "a", color="red", replicas=2)
    table = client.request("GET", WIDGETS, accept=TABLE).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Color", "Replicas"]
    assert table["rows"][0]["cells"] == ["a", "red", 2]


def test_table_without_printer_columns_has_age(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    version = dict(crd()["spec"]["versions"][0])
    version.pop("additionalPrinterColumns")
    install(client, crd(versions=[version]))
    _create(client, "a")
    table = client.request("GET", WIDGETS, accept=TABLE).json()
    assert [(c["name"], c["type"]) for c in table["columnDefinitions"]] == [("Name", "string"), ("Age", "date")]


def test_metadata_only_view(client) -> None:
    _create(client, "a", color="red")
    partial = client.request("GET", f"{WIDGETS}/a", accept=PARTIAL).json()
    assert partial["kind"] == "PartialObjectMetadata"
    assert "spec" not in partial


def test_dry_run_create_stores_nothing(client) -> None:
    answer = client.request("POST", WIDGETS, body=widget("a"), params={"dryRun": "All"})
    assert answer.status == 201
    assert client.request("GET", f"{WIDGETS}/a").status == 404


def test_protobuf_is_not_served(client) -> None:
    _create(client, "a")
    refused = client.request("GET", f"{WIDGETS}/a", accept="application/vnd.kubernetes.protobuf")
    assert refused.status == 406
    body = b"\x6b\x38\x73\x00"
    unsupported = client.request("POST", WIDGETS, body=body, content_type="application/vnd.kubernetes.protobuf")
    assert unsupported.status == 415


def test_yaml_is_served(client) -> None:
    _create(client, "a", color="red")
    answer = client.request("GET", f"{WIDGETS}/a", accept="application/yaml")
    assert answer.status == 200
    assert b"color: red" in answer.body


def test_deletecollection(client) -> None:
    for name in ("a", "b"):
        _create(client, name)
    answer = client.request("DELETE", WIDGETS)
    assert answer.status == 200
    assert client.request("GET", WIDGETS).json()["items"] == []


def test_cluster_scoped_custom_resources(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client, crd(scope="Cluster"))
    path = "/apis/example.com/v1/widgets"
    created = client.request("POST", path, body=widget("a"))
    assert created.status == 201
    assert "namespace" not in created.json()["metadata"]
    assert client.request("GET", "/apis/example.com/v1/namespaces/default/widgets/a").status == 404


def test_server_side_apply_treats_an_atomic_map_as_one_value(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    version = crd()["spec"]["versions"][0]
    spec_schema = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec_schema["properties"]["limits"] = {
        "type": "object",
        "x-kubernetes-map-type": "atomic",
        "additionalProperties": {"type": "string"},
    }
    install(client, crd(versions=[version]))

    def apply(manager: str, limits: dict, force: bool = False) -> object:
        params = {"fieldManager": manager, **({"force": "true"} if force else {})}
        return client.request(
            "PATCH", f"{WIDGETS}/a", body=widget("a", limits=limits), content_type=APPLY, params=params
        )

    assert apply("one", {"cpu": "1", "memory": "1Gi"}).status == 201
    conflict = apply("two", {"cpu": "2"})
    assert conflict.status == 409
    assert apply("two", {"cpu": "2"}, force=True).json()["spec"]["limits"] == {"cpu": "2"}
