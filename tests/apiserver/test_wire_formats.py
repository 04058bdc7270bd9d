"""Negotiation (spec 1 §4.4 rules 1-6), YAML, Protobuf, CBOR, views, compression, storage encoding."""

from __future__ import annotations

import struct

import cbor2
import pytest
import yaml

from svc.wire.protobuf import MAGIC, decode_object, decode_watch_event, encode_object

PATH = "/api/v1/namespaces/default/configmaps"
PROTOBUF = "application/vnd.svc.protobuf"


@pytest.fixture
def api(svc_server):
    client = svc_server.client()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}, "data": {"k": "v"}}
    client.request("POST", PATH, body=body)
    return client


def _svc_group(group: str) -> str:
    return group.replace(".svc", ".k8s.io") if group.endswith(".svc") else group


def test_rule1_chosen_type_is_named_in_content_type(api) -> None:
    response = api.request("GET", f"{PATH}/one", accept="application/yaml")
    assert response.headers["Content-Type"] == "application/yaml"
    assert yaml.safe_load(response.body)["data"] == {"k": "v"}


def test_q_weights_choose_the_preferred_type(api) -> None:
    response = api.request("GET", f"{PATH}/one", accept="application/json;q=0.5, application/yaml;q=0.9")
    assert response.headers["Content-Type"] == "application/yaml"


def test_wildcard_gets_json(api) -> None:
    response = api.request("GET", f"{PATH}/one", accept="*/*")
    assert response.headers["Content-Type"] == "application/json"


def test_rule2_nothing_supported_is_406(api) -> None:
    response = api.request("GET", f"{PATH}/one", accept="text/html")
    assert response.status == 406
    assert response.json()["reason"] == "NotAcceptable"
    assert response.json()["message"].startswith("only the following media types are accepted: application/json")


def test_rule3_table_and_metadata_views(api) -> None:
    table = api.request("GET", PATH, accept="application/json;as=Table;g=meta.svc;v=v1").json()
    assert table["kind"] == "Table"
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    partial = api.request("GET", f"{PATH}/one", accept="application/json;as=PartialObjectMetadata;g=meta.svc;v=v1")
    assert partial.json() == {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.svc/v1",
        "metadata": partial.json()["metadata"],
    }
    listed = api.request("GET", PATH, accept="application/json;as=PartialObjectMetadataList;g=meta.svc;v=v1").json()
    assert listed["kind"] == "PartialObjectMetadataList"
    assert listed["items"][0]["kind"] == "PartialObjectMetadata"
    assert "data" not in listed["items"][0]


def test_table_include_object(api) -> None:
    accept = "application/json;as=Table;g=meta.svc;v=v1"
    none = api.request("GET", PATH, params={"includeObject": "None"}, accept=accept).json()
    assert none["rows"][0]["object"] is None  # upstream's empty RawExtension, written as null
    full = api.request("GET", PATH, params={"includeObject": "Object"}, accept=accept).json()
    assert full["rows"][0]["object"]["data"] == {"k": "v"}


def test_rule4_view_only_accept_is_406_and_fallback_gets_full_object(api) -> None:
    only = api.request("GET", f"{PATH}/one", accept="application/json;as=Table;g=other.group;v=v1")
    assert only.status == 406
    fallback = api.request(
        "GET", f"{PATH}/one", accept="application/json;as=Table;g=other.group;v=v1, application/json;q=0.9"
    )
    assert fallback.status == 200
    assert fallback.json()["kind"] == "ConfigMap"


def test_partial_object_metadata_of_a_list_is_406(api) -> None:
    response = api.request("GET", PATH, accept="application/json;as=PartialObjectMetadata;g=meta.svc;v=v1")
    assert response.status == 406


def test_unsupported_body_type_is_415(api) -> None:
    response = api.request("POST", PATH, body=b"x", content_type="application/xml")
    assert response.status == 415


def test_yaml_request_body(api) -> None:
    body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: b\n"
    response = api.request("POST", PATH, body=body, content_type="application/yaml")
    assert response.status == 201
    assert response.json()["data"] == {"a": "b"}


def test_yaml_list(api) -> None:
    listed = yaml.safe_load(api.request("GET", PATH, accept="application/yaml").body)
    assert listed["kind"] == "ConfigMapList"


def test_table_of_one_object_carries_its_resource_version(api) -> None:
    version = api.request("GET", f"{PATH}/one").json()["metadata"]["resourceVersion"]
    table = api.request(
        "GET", f"{PATH}/one", params={"includeObject": "None"}, accept="application/json;as=Table;g=meta.svc;v=v1"
    ).json()
    assert table["metadata"] == {"resourceVersion": version}


def test_table_of_a_list_from_the_cache_has_a_row_per_item(api) -> None:
    api.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "two"}})
    accept = "application/json;as=Table;g=meta.svc;v=v1"
    table = api.request("GET", PATH, params={"resourceVersion": "0"}, accept=accept).json()
    assert [row["cells"][0] for row in table["rows"]] == ["one", "two"]
    assert table["metadata"]["resourceVersion"]


def test_protobuf_get_has_the_envelope(api) -> None:
    response = api.request("GET", f"{PATH}/one", accept=PROTOBUF)
    assert response.headers["Content-Type"] == PROTOBUF
    assert response.body[:4] == MAGIC == b"\x6b\x38\x73\x00"
    decoded = decode_object(response.body, group_of=_svc_group)
    assert decoded["data"] == {"k": "v"}


def test_protobuf_list_and_create(api) -> None:
    body = encode_object(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "from-pb"}, "data": {"x": "y"}},
        group_of=_svc_group,
    )
    created = api.request("POST", PATH, body=body, content_type=PROTOBUF, accept=PROTOBUF)
    assert created.status == 201
    listed = decode_object(api.request("GET", PATH, accept=PROTOBUF).body, group_of=_svc_group)
    assert sorted(item["metadata"]["name"] for item in listed["items"]) == ["from-pb", "one"]


def test_protobuf_list_from_the_cache_has_the_items_json_has(api) -> None:
    for name in ("two", "three"):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"n": name}}}
        api.request("POST", PATH, body=body)
    params = {"resourceVersion": "0", "labelSelector": "n", "limit": "1"}
    as_json = api.request("GET", PATH, params=params).json()
    listed = decode_object(api.request("GET", PATH, params=params, accept=PROTOBUF).body, group_of=_svc_group)
    assert [item["metadata"]["name"] for item in listed["items"]] == ["three"]
    assert listed["items"] == [{"metadata": item["metadata"]} for item in as_json["items"]]


def test_protobuf_watch_frames(svc_server, api) -> None:
    version = api.request("GET", PATH).json()["metadata"]["resourceVersion"]
    stream = svc_server.client().stream(PATH, params={"watch": "1", "resourceVersion": version}, accept=PROTOBUF)
    api.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w"}})
    length = struct.unpack(">I", stream.read(4))[0]
    event_type, obj = decode_watch_event(struct.pack(">I", length) + stream.read(length), group_of=_svc_group)
    stream.close()
    assert (event_type, obj["metadata"]["name"]) == ("ADDED", "w")


def test_cbor_is_off_by_default(api) -> None:
    assert api.request("GET", f"{PATH}/one", accept="application/cbor").status == 406
    assert api.request("POST", PATH, body=b"\xa0", content_type="application/cbor").status == 415


def test_cbor_round_trip_with_gate(svc_server_factory) -> None:
    client = svc_server_factory("--feature-gates=CBORServingAndStorage=true").client()
    body = cbor2.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}})
    created = client.request(
        "POST", PATH, body=b"\xd9\xd9\xf7" + body, content_type="application/cbor", accept="application/cbor"
    )
    assert created.status == 201
    assert created.headers["Content-Type"] == "application/cbor"
    assert created.body[:3] == b"\xd9\xd9\xf7"
    assert cbor2.loads(created.body)["data"] == {"a": "b"}
    merge = client.request("PATCH", f"{PATH}/c", body=b"\xa0", content_type="application/merge-patch+cbor")
    assert merge.status == 415


def test_gzip_for_large_lists_only(api) -> None:
    for index in range(60):
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"big-{index}"},
            "data": {"v": "x" * 3000},
        }
        api.request("POST", PATH, body=body)
    large = api.request("GET", PATH, headers={"Accept-Encoding": "gzip"})
    assert large.headers["Content-Encoding"] == "gzip"
    assert len(large.json()["items"]) == 61
    small = api.request("GET", f"{PATH}/one", headers={"Accept-Encoding": "gzip"})
    assert small.headers.get("Content-Encoding") is None


def test_a_body_larger_than_a_write_slice_arrives_whole(api) -> None:
    from svc.apiserver.responses import BODY_SLICE

    payload = "x" * 20_000
    count = BODY_SLICE // len(payload) + 2
    for index in range(count):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"big-{index}"}, "data": {"v": payload}}
        api.request("POST", PATH, body=body)
    listed = api.request("GET", PATH, headers={"Accept-Encoding": "identity"})
    assert int(listed.headers["Content-Length"]) == len(listed.body) > BODY_SLICE
    assert len(listed.json()["items"]) == count + 1


def test_head_of_a_body_larger_than_a_write_slice_sends_no_body(api) -> None:
    """The next answer on the kept-alive connection must be the next request's, not the left-over body."""
    from svc.apiserver.responses import BODY_SLICE

    head = api.request("HEAD", "/openapi/v2", headers={"Accept-Encoding": "identity"})
    assert head.status == 200
    assert int(head.headers["Content-Length"]) > BODY_SLICE
    after = api.request("GET", "/version")
    assert after.status == 200
    assert "gitVersion" in after.json()


def test_gzip_off_with_gate_off(svc_server_factory) -> None:
    client = svc_server_factory("--feature-gates=APIResponseCompression=false").client()
    for index in range(60):
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"big-{index}"},
            "data": {"v": "x" * 3000},
        }
        client.request("POST", PATH, body=body)
    assert client.request("GET", PATH, headers={"Accept-Encoding": "gzip"}).headers.get("Content-Encoding") is None


def test_pretty_indents_json(api) -> None:
    pretty = api.request("GET", f"{PATH}/one", params={"pretty": "true"}).body.decode()
    assert pretty.startswith("{\n  ")
    compact = api.request("GET", f"{PATH}/one").body.decode()
    assert "\n" not in compact.removesuffix("\n")


@pytest.mark.parametrize("media_type", ["application/json", "application/yaml", PROTOBUF])
def test_storage_media_type_stays_readable_after_change(tmp_path, media_type) -> None:
    # A restart on the same data dir, in this process (a process restart proves no more here).
    from svc.testing.harness import in_process_server

    data_dir = tmp_path / "data"
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}, "data": {"a": "b"}}
    with in_process_server(data_dir, f"--storage-media-type={media_type}") as first:
        assert first.client().request("POST", PATH, body=body).status == 201
    other = "application/yaml" if media_type != "application/yaml" else "application/json"
    with in_process_server(data_dir, f"--storage-media-type={other}") as second:
        assert second.client().request("GET", f"{PATH}/kept").json()["data"] == {"a": "b"}


def _stored_value(server, name: str) -> bytes:
    store = server.server.stores[("", "v1", "configmaps")]
    kv = server.call(server.server.objects.get_raw(store.key("default", name)))
    return kv.value


def test_objects_are_stored_as_protobuf_by_default(svc_server, api) -> None:
    assert _stored_value(svc_server, "one").startswith(MAGIC)


def test_an_update_protobuf_stores_alike_writes_no_new_version(api) -> None:
    # Protobuf holds an empty map and an absent one alike, as upstream's byte comparison sees them.
    created = api.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bare"}})
    version = created.json()["metadata"]["resourceVersion"]
    body = {"metadata": {"name": "bare", "resourceVersion": version}, "data": {}, "kind": "ConfigMap"}
    updated = api.request("PUT", f"{PATH}/bare", body={**body, "apiVersion": "v1"})
    assert updated.status == 200
    assert updated.json()["metadata"]["resourceVersion"] == version


def test_table_rows_of_finished_pods_carry_the_completed_condition(api) -> None:
    pods = "/api/v1/namespaces/default/pods"
    for name, phase in (("done", "Succeeded"), ("running", "Running")):
        body = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
        }
        api.request("POST", pods, body=body)
        status = {"status": {"phase": phase}}
        api.request("PATCH", f"{pods}/{name}/status", body=status, content_type="application/merge-patch+json")
    rows = api.request("GET", pods, accept="application/json;as=Table;g=meta.svc;v=v1").json()["rows"]
    by_name = {row["cells"][0]: row for row in rows}
    assert by_name["done"]["conditions"] == [
        {"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}
    ]
    assert "conditions" not in by_name["running"]


def test_cbor_integer_past_int64_is_400(svc_server_factory) -> None:
    client = svc_server_factory("--feature-gates=CBORServingAndStorage=true").client()
    body = cbor2.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "extra": 1 << 64})
    response = client.request("POST", PATH, body=b"\xd9\xd9\xf7" + body, content_type="application/cbor")
    assert response.status == 400
    assert "overflows Go's int64" in response.json()["message"]
    assert client.request("GET", f"{PATH}/c").status == 404


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        (PROTOBUF, PROTOBUF),
        ("application/yaml", "application/yaml"),
        (f"{PROTOBUF}, application/json", PROTOBUF),
        ("application/json;as=Table;g=meta.svc;v=v1", "application/json"),
        ("application/json;as=Table;g=meta.svc;v=v1, application/yaml", "application/yaml"),
        ("text/html", "application/json"),
    ],
)
def test_error_status_is_written_in_the_negotiated_format(api, accept: str, content_type: str) -> None:
    """As upstream: an error's Status in the format the Accept header chooses (no view), else JSON."""
    response = api.request("GET", f"{PATH}/missing", accept=accept)
    assert response.headers["Content-Type"] == content_type
    status = decode_object(response.body) if content_type == PROTOBUF else yaml.safe_load(response.body)
    assert status["kind"] == "Status"
    assert status["code"] == response.status == (406 if accept == "text/html" else 404)
