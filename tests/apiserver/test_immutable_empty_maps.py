"""An immutable ConfigMap or Secret re-sent with an empty `data` (issue 12): upstream compares the maps
with `reflect.DeepEqual` on its Go objects, where a map sent as `{}` is not the nil map of an object
stored without it, so that write is refused; an absent or null map, or the same keys, are not."""

from __future__ import annotations

import base64

import pytest

CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"
SECRETS = "/api/v1/namespaces/default/secrets"
FROZEN = "Forbidden: field is immutable when `immutable` is set"


def _object(kind: str, **fields) -> dict:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": "o"}, "immutable": True, **fields}


def _created(client, collection: str, kind: str, **fields) -> dict:
    answer = client.request("POST", collection, body=_object(kind, **fields))
    assert answer.status == 201, answer.body
    return answer.json()


def _causes(answer) -> list[tuple[str, str]]:
    assert answer.status == 422, answer.body
    return [(c["field"], c["message"]) for c in answer.json()["details"]["causes"]]


@pytest.mark.parametrize("member", ["data", "binaryData"])
def test_an_empty_map_sent_to_an_immutable_config_map_without_it_is_a_change(svc_server, member) -> None:
    client = svc_server.client()
    stored = _created(client, CONFIG_MAPS, "ConfigMap")
    answer = client.request("PUT", f"{CONFIG_MAPS}/o", body={**stored, member: {}})
    assert _causes(answer) == [(member, FROZEN)]
    assert answer.json()["message"] == f'ConfigMap "o" is invalid: {member}: {FROZEN}'


def test_an_empty_map_merged_into_an_immutable_config_map_is_a_change(svc_server) -> None:
    client = svc_server.client()
    _created(client, CONFIG_MAPS, "ConfigMap")
    patch = {"data": {}}
    answer = client.request("PATCH", f"{CONFIG_MAPS}/o", body=patch, content_type="application/merge-patch+json")
    assert _causes(answer) == [("data", FROZEN)]


@pytest.mark.parametrize("data", [None, {"k": "v"}])
def test_an_immutable_config_map_re_sent_as_stored_is_accepted(svc_server, data) -> None:
    client = svc_server.client()
    stored = _created(client, CONFIG_MAPS, "ConfigMap", **({} if data is None else {"data": data}))
    resent = {**stored, "data": data}  # null reads back as the nil map
    answer = client.request("PUT", f"{CONFIG_MAPS}/o", body=resent)
    assert answer.status == 200, answer.body
    assert "binaryData" not in answer.json()


def test_an_immutable_config_map_with_data_refuses_an_empty_one(svc_server) -> None:
    client = svc_server.client()
    stored = _created(client, CONFIG_MAPS, "ConfigMap", data={"k": "v"})
    assert _causes(client.request("PUT", f"{CONFIG_MAPS}/o", body={**stored, "data": {}})) == [("data", FROZEN)]


def test_an_empty_map_is_still_not_stored_nor_owned(svc_server) -> None:
    client = svc_server.client()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "o", "labels": {"a": "b"}}}
    stored = client.request("POST", CONFIG_MAPS, body=body, params={"fieldManager": "m"}).json()
    stored["metadata"]["labels"]["c"] = "d"
    answer = client.request("PUT", f"{CONFIG_MAPS}/o", body={**stored, "data": {}}, params={"fieldManager": "n"})
    assert answer.status == 200, answer.body
    assert "data" not in answer.json()
    assert "data" not in client.request("GET", f"{CONFIG_MAPS}/o").json()
    assert all("f:data" not in entry["fieldsV1"] for entry in answer.json()["metadata"]["managedFields"])


def test_an_empty_data_sent_to_an_immutable_secret_without_it_is_a_change(svc_server) -> None:
    client = svc_server.client()
    stored = _created(client, SECRETS, "Secret")
    assert _causes(client.request("PUT", f"{SECRETS}/o", body={**stored, "data": {}})) == [("data", FROZEN)]


def test_empty_string_data_leaves_an_immutable_secret_unchanged(svc_server) -> None:
    client = svc_server.client()
    stored = _created(client, SECRETS, "Secret")
    answer = client.request("PUT", f"{SECRETS}/o", body={**stored, "stringData": {}})
    assert answer.status == 200, answer.body


def test_string_data_equal_to_an_immutable_secret_s_data_is_accepted(svc_server) -> None:
    client = svc_server.client()
    stored = _created(client, SECRETS, "Secret", data={"k": base64.b64encode(b"v").decode()})
    answer = client.request("PUT", f"{SECRETS}/o", body={**stored, "stringData": {"k": "v"}})
    assert answer.status == 200, answer.body
