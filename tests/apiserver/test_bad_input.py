"""Bad input gets a clear 400/422 Status and stores nothing."""

from __future__ import annotations

import gzip

import pytest

PROTOBUF = "application/vnd.svc.protobuf"


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _names(api) -> list[str]:
    return [
        item["metadata"]["name"] for item in api.request("GET", "/api/v1/namespaces/default/configmaps").json()["items"]
    ]


def test_malformed_json_is_400(api) -> None:
    response = api.request("POST", "/api/v1/namespaces/default/configmaps", body=b'{"metadata": {"name": ')
    assert response.status == 400
    body = response.json()
    assert body["reason"] == "BadRequest"
    assert body["message"].startswith("the object provided is unrecognized (must be of type ConfigMap)")
    assert _names(api) == []


def test_wrong_kind_for_path_is_400(api) -> None:
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}
    response = api.request("POST", "/api/v1/namespaces/default/configmaps", body=secret)
    assert response.status == 400
    assert "cannot be handled as a ConfigMap" in response.json()["message"]
    assert _names(api) == []


def test_wrong_api_version_for_path_is_400(api) -> None:
    body = {"apiVersion": "apps/v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    response = api.request("POST", "/api/v1/namespaces/default/configmaps", body=body)
    assert response.status == 400
    assert response.json()["message"] == (
        "the API version in the data (apps/v1) does not match the expected API version (v1)"
    )
    assert _names(api) == []


def test_invalid_name_is_422_with_cause(api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Not_Valid"}}
    response = api.request("POST", "/api/v1/namespaces/default/configmaps", body=body)
    assert response.status == 422
    status = response.json()
    assert status["reason"] == "Invalid"
    assert status["message"].startswith('ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid"')
    assert status["details"]["causes"][0]["field"] == "metadata.name"
    assert status["details"]["causes"][0]["reason"] == "FieldValueInvalid"
    assert _names(api) == []


def test_body_for_another_namespace_is_400(api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "elsewhere"}}
    response = api.request("POST", "/api/v1/namespaces/default/configmaps", body=body)
    assert response.status == 400
    assert response.json()["message"] == (
        "the namespace of the provided object does not match the namespace sent on the request"
    )
    assert _names(api) == []


def test_create_in_missing_namespace_is_404(api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    response = api.request("POST", "/api/v1/namespaces/nowhere/configmaps", body=body)
    assert response.status == 404
    assert response.json()["message"] == 'namespaces "nowhere" not found'


def test_name_mismatch_on_update_is_400(api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    api.request("POST", "/api/v1/namespaces/default/configmaps", body=body)
    response = api.request("PUT", "/api/v1/namespaces/default/configmaps/a", body={**body, "metadata": {"name": "b"}})
    assert response.status == 400
    assert response.json()["message"] == "the name of the object (b) does not match the name on the URL (a)"


def test_unknown_resource_is_404(api) -> None:
    response = api.request("GET", "/api/v1/namespaces/default/widgets")
    assert response.status == 404
    assert response.json()["message"] == "the server could not find the requested resource"


def test_unsupported_verb_is_405(api) -> None:
    response = api.request("DELETE", "/api/v1/namespaces")
    assert response.status == 405
    assert response.json()["reason"] == "MethodNotAllowed"


def test_unsupported_content_type_is_415(api) -> None:
    response = api.request("POST", "/api/v1/namespaces/default/configmaps", body=b"name: x", content_type="text/plain")
    assert response.status == 415
    assert response.json()["reason"] == "UnsupportedMediaType"


def test_resource_version_on_create_is_400(api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "resourceVersion": "5"}}
    response = api.request("POST", "/api/v1/namespaces/default/configmaps", body=body)
    assert response.status == 400
    assert response.json()["message"] == "resourceVersion should not be set on objects to be created"
    assert _names(api) == []


def test_content_encoding_of_a_body_is_not_undone(api) -> None:
    """As upstream: the body is read as sent, so a compressed (or falsely labelled) one fails to decode."""
    body = gzip.compress(b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"z"}}')
    for sent in (body, b"{}"):
        response = api.request(
            "POST", "/api/v1/namespaces/default/configmaps", body=sent, headers={"Content-Encoding": "gzip"}
        )
        assert response.status in (400, 422)
        assert response.json()["kind"] == "Status"
    assert _names(api) == []


def test_unknown_content_encoding_of_a_body_is_ignored(api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "e"}}
    response = api.request(
        "POST", "/api/v1/namespaces/default/configmaps", body=body, headers={"Content-Encoding": "x-unheard-of"}
    )
    assert response.status == 201
    assert _names(api) == ["e"]


def test_request_line_up_to_a_mebibyte_reaches_the_handler(api) -> None:
    """Upstream's MaxHeaderBytes is 1 MiB: a long name is a 404 Status, not a protocol error."""
    response = api.request("GET", "/api/v1/namespaces/default/configmaps/" + "n" * 20_000)
    assert response.status == 404
    assert response.json()["reason"] == "NotFound"


def test_connect_with_a_body_is_405_and_the_next_request_is_answered(api) -> None:
    response = api.request("CONNECT", "/api/v1/namespaces", body=b"{}")
    assert response.status == 405
    assert response.json()["reason"] == "MethodNotAllowed"
    after = api.request("GET", "/version")
    assert after.status == 200
    assert "gitVersion" in after.json()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}, "spec": None}),
        (
            "/apis/apps/v1/namespaces/default/deployments",
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "d", "labels": None},
                "spec": {
                    "replicas": None,
                    "strategy": None,
                    "selector": {"matchLabels": {"app": "d"}},
                    "template": {
                        "metadata": {"labels": {"app": "d"}},
                        "spec": {"containers": [{"name": "c", "image": "i"}], "securityContext": None},
                    },
                },
            },
        ),
    ],
)
def test_null_fields_are_left_unset_and_defaulted(api, path: str, body: dict) -> None:
    """Upstream decodes a null into an unset struct field, which then gets its default."""
    response = api.request("POST", path, body=body)
    assert response.status == 201, response.body
    created = response.json()
    assert None not in (created.get("spec"), created["metadata"].get("labels", {}))
    if created["kind"] == "Deployment":
        assert created["spec"]["replicas"] == 1
        assert created["spec"]["strategy"]["type"] == "RollingUpdate"


def test_null_list_item_and_map_value_become_zero_values(api) -> None:
    """Upstream decodes a null element into its type's zero value: `{}` for a struct, `""` for a string."""
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"a": None}},
        "spec": {"containers": [{"name": "c", "image": "i", "args": ["x", None]}]},
    }
    response = api.request("POST", "/api/v1/namespaces/default/pods", body=body)
    assert response.status == 201, response.body
    stored = api.request("GET", "/api/v1/namespaces/default/pods/p").json()
    assert stored["metadata"]["labels"] == {"a": ""}
    assert stored["spec"]["containers"][0]["args"] == ["x", ""]


def test_null_item_in_a_list_of_structs_is_an_empty_one(api) -> None:
    spec = {"containers": [{"name": "c", "image": "i"}], "imagePullSecrets": [{"name": "pull"}, None]}
    path = "/api/v1/namespaces/default/pods"
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}
    created = api.request("POST", path, body=body)
    assert created.status == 201, created.body
    assert api.request("GET", f"{path}/p").json()["spec"]["imagePullSecrets"] == [{"name": "pull"}, {}]


def test_bytes_sent_as_an_array_of_numbers_are_stored_as_base64(api) -> None:
    """Go decodes a JSON array of numbers into []byte too; the stored value is base64 as always."""
    body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"a": [104, 105], "b": []}}
    response = api.request("POST", "/api/v1/namespaces/default/secrets", body=body)
    assert response.status == 201, response.body
    stored = api.request("GET", "/api/v1/namespaces/default/secrets/s", accept=PROTOBUF)
    assert stored.status == 200
    assert api.request("GET", "/api/v1/namespaces/default/secrets/s").json()["data"] == {"a": "aGk=", "b": ""}
