"""fieldValidation (spec 1 §2.9) and type checking (§2.3) on POST, PUT and PATCH."""

from __future__ import annotations

import pytest

PATH = "/api/v1/namespaces/default/configmaps"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _with_unknown() -> dict:
    """A data key, so the create's manager owns a field (an empty `data` is no field, and no entry)."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "u", "bogus": 1},
        "data": {"k": "v"},
        "extra": True,
    }


def _warnings(response) -> list[str]:
    return response.warnings


def test_warn_is_the_default(api) -> None:
    response = api.request("POST", PATH, body=_with_unknown())
    assert response.status == 201
    assert _warnings(response) == ['299 - "unknown field \\"metadata.bogus\\""', '299 - "unknown field \\"extra\\""']


def test_strict_rejects_naming_all_fields(api) -> None:
    response = api.request("POST", PATH, body=_with_unknown(), params={"fieldValidation": "Strict"})
    assert response.status == 400
    assert response.json()["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
        'unknown field "metadata.bogus", unknown field "extra"'
    )
    assert api.request("GET", f"{PATH}/u").status == 404


def test_ignore_drops_silently(api) -> None:
    response = api.request("POST", PATH, body=_with_unknown(), params={"fieldValidation": "Ignore"})
    assert response.status == 201
    assert _warnings(response) == []


@pytest.mark.parametrize("level", ["Warn", "Ignore"])
def test_unknown_fields_are_not_stored(api, level: str) -> None:
    created = api.request("POST", PATH, body=_with_unknown(), params={"fieldValidation": level}).json()
    stored = api.request("GET", f"{PATH}/u").json()
    for obj in (created, stored):
        assert "extra" not in obj
        assert "bogus" not in obj["metadata"]
        assert "f:extra" not in obj["metadata"]["managedFields"][0]["fieldsV1"]


def test_unknown_field_holding_a_number_past_64_bits_is_dropped(api) -> None:
    body = b"metadata: {name: big}\nhuge: 18446744073709551616\ntiny: -9223372036854775809\n"
    response = api.request("POST", PATH, body=body, content_type="application/yaml")
    assert response.status == 201
    assert "huge" not in api.request("GET", f"{PATH}/big").json()


def test_duplicate_field_in_json(api) -> None:
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","name":"d"}}'
    response = api.request("POST", PATH, body=body, params={"fieldValidation": "Strict"})
    assert response.status == 400
    assert 'duplicate field "metadata.name"' in response.json()["message"]


def test_type_error_is_400_naming_only_the_first(api) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "t"},
        "spec": {"replicas": "three", "template": {"spec": {"containers": {"name": "x"}}}},
        "unknown": 1,
    }
    response = api.request("POST", DEPLOYMENTS, body=deployment, params={"fieldValidation": "Ignore"})
    assert response.status == 400
    message = response.json()["message"]
    assert message.startswith(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string'
    )
    assert "replicas" in message
    assert "containers" not in message
    assert "unknown" not in message


def test_type_error_deep_inside(api) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "t"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": "80"}]}]}}},
    }
    response = api.request("POST", DEPLOYMENTS, body=deployment)
    assert response.status == 400
    assert "containerPort" in response.json()["message"]


def test_put_is_validated(api) -> None:
    created = api.request(
        "POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "p"}}
    ).json()
    created["surprise"] = 1
    response = api.request("PUT", f"{PATH}/p", body=created, params={"fieldValidation": "Strict"})
    assert response.status == 400
    assert 'unknown field "surprise"' in response.json()["message"]


def test_patch_unknown_field_warns_and_strict_rejects(api) -> None:
    api.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "q"}})
    warned = api.request("PATCH", f"{PATH}/q", body={"surprise": 1}, content_type="application/merge-patch+json")
    assert warned.status == 200
    assert warned.warnings == ['299 - "unknown field \\"surprise\\""']
    strict = api.request(
        "PATCH",
        f"{PATH}/q",
        body={"surprise": 1},
        content_type="application/merge-patch+json",
        params={"fieldValidation": "Strict"},
    )
    assert strict.status == 422
    assert 'strict decoding error: unknown field "surprise"' in strict.json()["message"]
    assert "surprise" not in api.request("GET", f"{PATH}/q").json()


def test_bad_level_is_422(api) -> None:
    response = api.request("POST", PATH, body=_with_unknown(), params={"fieldValidation": "Loose"})
    assert response.status == 422
    assert 'fieldValidation: Unsupported value: "Loose"' in response.json()["message"]


def test_yaml_duplicates(api) -> None:
    body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: why\n  name: why\n"
    response = api.request(
        "POST", PATH, body=body, content_type="application/yaml", params={"fieldValidation": "Strict"}
    )
    assert response.status == 400
    assert 'key "name" already set in map' in response.json()["message"]
