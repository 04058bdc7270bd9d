"""A Secret's `stringData` is folded into `data` before field ownership is recorded (issue 12 part 6)."""

from __future__ import annotations

import base64

SECRETS = "/api/v1/namespaces/default/secrets"


def _owned(obj: dict, manager: str) -> dict:
    (entry,) = [e for e in obj["metadata"]["managedFields"] if e["manager"] == manager]
    return entry["fieldsV1"]


def _secret(**fields) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, **fields}


def test_create_records_the_data_keys_string_data_became(svc_server) -> None:
    client = svc_server.client()
    body = _secret(stringData={"password": "hunter2"})
    answer = client.request("POST", SECRETS, body=body, params={"fieldManager": "maker"})
    assert answer.status == 201, answer.body
    created = answer.json()
    assert created["data"] == {"password": base64.b64encode(b"hunter2").decode()}
    assert "stringData" not in created
    assert _owned(created, "maker")["f:data"] == {".": {}, "f:password": {}}
    assert "f:stringData" not in _owned(created, "maker")


def test_an_update_with_string_data_owns_the_data_key(svc_server) -> None:
    client = svc_server.client()
    assert (
        client.request("POST", SECRETS, body=_secret(data={"a": "YQ=="}), params={"fieldManager": "maker"}).status
        == 201
    )
    current = client.request("GET", f"{SECRETS}/s").json()
    current["stringData"] = {"b": "bee"}
    answer = client.request("PUT", f"{SECRETS}/s", body=current, params={"fieldManager": "editor"})
    assert answer.status == 200, answer.body
    assert _owned(answer.json(), "editor") == {"f:data": {"f:b": {}}}


def test_a_patch_with_string_data_owns_the_data_key(svc_server) -> None:
    client = svc_server.client()
    assert (
        client.request("POST", SECRETS, body=_secret(data={"a": "YQ=="}), params={"fieldManager": "maker"}).status
        == 201
    )
    answer = client.request(
        "PATCH",
        f"{SECRETS}/s",
        body={"stringData": {"c": "sea"}},
        content_type="application/merge-patch+json",
        params={"fieldManager": "patcher"},
    )
    assert answer.status == 200, answer.body
    assert answer.json()["data"]["c"] == base64.b64encode(b"sea").decode()
    assert _owned(answer.json(), "patcher") == {"f:data": {"f:c": {}}}
