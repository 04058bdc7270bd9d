"""Custom resources are pruned, defaulted and validated against their version's schema when
written (issue 14: the schema half is `svc/api/crd`, wired in through the strategy)."""

from __future__ import annotations

import copy
import time

import pytest

from tests.apiserver.crd.crds import CRD_PATH, WIDGETS, crd, install, widget

MERGE = "application/merge-patch+json"


def _with_schema_changes(change) -> dict:
    version = copy.deepcopy(crd()["spec"]["versions"][0])
    change(version["schema"]["openAPIV3Schema"]["properties"]["spec"])
    return crd(versions=[version])


@pytest.fixture
def client(svc_server_factory):
    client = svc_server_factory("--brand-profile=kubernetes").client()

    def change(spec: dict) -> None:
        spec["properties"]["color"]["default"] = "grey"
        spec["properties"]["replicas"]["minimum"] = 0
        spec["x-kubernetes-validations"] = [
            {"rule": "self.replicas <= 10", "message": "at most ten replicas"},
        ]

    install(client, _with_schema_changes(change))
    return client


def test_unknown_fields_are_dropped_with_a_warning(client) -> None:
    answer = client.request("POST", WIDGETS, body=widget("a", replicas=1, junk=True))
    assert answer.status == 201
    assert "junk" not in answer.json()["spec"]
    assert any('unknown field \\"spec.junk\\"' in warning for warning in answer.warnings), answer.warnings


def test_a_warning_with_a_control_character_is_dropped_not_sent(client) -> None:
    """Found by tests/fuzz: an unknown field named "\\x1f" made a header aiohttp refuses, and the
    connection was dropped with no answer; upstream drops such a warning."""
    answer = client.request("POST", WIDGETS, body=widget("a", replicas=1, **{"\x1f": 1, "junk": True}))
    assert answer.status == 201
    assert answer.warnings == ['299 - "unknown field \\"spec.junk\\""']


def test_a_backslash_in_a_warning_is_escaped(client) -> None:
    answer = client.request("POST", WIDGETS, body=widget("a", replicas=1, **{"a\\b": 1}))
    assert answer.status == 201
    assert answer.warnings == ['299 - "unknown field \\"spec.a\\\\b\\""']


@pytest.mark.parametrize(
    ("metadata", "go_type"), [(True, "bool"), (5, "int64"), ("x", "string"), ([], "[]interface {}")]
)
def test_metadata_that_is_not_an_object_is_400(client, metadata, go_type) -> None:
    """Found by tests/fuzz: a 500 from the managed-fields tracker before."""
    answer = client.request("POST", WIDGETS, body={**widget("a", replicas=1), "metadata": metadata})
    assert answer.status == 400
    assert answer.json()["message"] == (
        f'Widget in version "v1" cannot be handled as a Widget: invalid metadata: expected object, got {go_type}'
    )
    assert client.request("GET", WIDGETS).json()["items"] == []


def test_strict_field_validation_refuses_unknown_fields(client) -> None:
    answer = client.request(
        "POST", WIDGETS, body=widget("a", replicas=1, junk=True), params={"fieldValidation": "Strict"}
    )
    assert answer.status == 400
    assert 'unknown field "spec.junk"' in answer.json()["message"]
    assert client.request("GET", f"{WIDGETS}/a").status == 404


def test_defaults_are_filled_on_create(client) -> None:
    created = client.request("POST", WIDGETS, body=widget("a", replicas=1)).json()
    assert created["spec"]["color"] == "grey"


def test_a_value_out_of_the_schema_is_invalid(client) -> None:
    answer = client.request("POST", WIDGETS, body=widget("a", replicas=-1))
    assert answer.status == 422
    body = answer.json()
    assert body["reason"] == "Invalid"
    assert body["details"]["causes"][0]["field"] == "spec.replicas"
    assert body["message"].startswith('Widget.example.com "a" is invalid: spec.replicas: Invalid value: -1')


def test_a_cel_rule_rejects_with_its_message(client) -> None:
    answer = client.request("POST", WIDGETS, body=widget("a", replicas=11))
    assert answer.status == 422
    message = 'Widget.example.com "a" is invalid: spec: Invalid value: at most ten replicas'
    assert answer.json()["message"] == message


def test_a_patch_is_validated(client) -> None:
    client.request("POST", WIDGETS, body=widget("a", replicas=1))
    answer = client.request("PATCH", f"{WIDGETS}/a", body={"spec": {"replicas": 50}}, content_type=MERGE)
    assert answer.status == 422
    assert client.request("GET", f"{WIDGETS}/a").json()["spec"]["replicas"] == 1


def test_a_status_write_is_validated(client) -> None:
    client.request("POST", WIDGETS, body=widget("a", replicas=1))
    answer = client.request("PATCH", f"{WIDGETS}/a/status", body={"status": {"replicas": "many"}}, content_type=MERGE)
    assert answer.status == 422
    assert answer.json()["details"]["causes"][0]["field"] == "status.replicas"


def test_a_default_added_later_shows_on_objects_stored_before(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    current = install(client)
    assert client.request("POST", WIDGETS, body=widget("a", replicas=1)).status == 201
    schema = current["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    schema["properties"]["spec"]["properties"]["color"]["default"] = "teal"
    assert client.request("PUT", f"{CRD_PATH}/widgets.example.com", body=current).status == 200
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        got = client.request("GET", f"{WIDGETS}/a").json()
        if got["spec"].get("color"):
            break
        time.sleep(0.02)
    assert got["spec"] == {"replicas": 1, "color": "teal"}
    assert client.request("GET", WIDGETS).json()["items"][0]["spec"]["color"] == "teal"


def test_unknown_metadata_fields_are_dropped_with_a_warning(client) -> None:
    body = widget("a", replicas=1)
    body["metadata"]["junk"] = 1
    answer = client.request("POST", WIDGETS, body=body)
    assert answer.status == 201
    assert "junk" not in answer.json()["metadata"]
    assert any('unknown field \\"metadata.junk\\"' in warning for warning in answer.warnings), answer.warnings
