"""Corrupt objects (spec 1 §3.1): normal reads fail clearly; the unsafe delete removes them only when
allowed by the gate and both verbs, with the other delete options unset."""

from __future__ import annotations

import pytest

from svc.apiserver.authz.authorizer import Attributes, Decision, Union

PATH = "/api/v1/namespaces/default/configmaps"
UNSAFE = "ignoreStoreReadErrorWithClusterBreakingPotential"


def _key(server, name: str) -> str:
    return f"{server.server.options.store_prefix}/configmaps/default/{name}"


def _corrupt(server, name: str) -> None:
    server.call(server.server.backend.create(_key(server, name), b"\x00not an object"))


@pytest.fixture
def gated(svc_server_factory):
    return svc_server_factory("--feature-gates=AllowUnsafeMalformedObjectDeletion=true")


def test_get_of_corrupt_object_is_internal_error(svc_server) -> None:
    _corrupt(svc_server, "bad")
    response = svc_server.client().request("GET", f"{PATH}/bad")
    assert response.status == 500
    assert response.json()["message"].startswith(
        f"Internal error occurred: StorageError: corrupt object, Code: 6, Key: {_key(svc_server, 'bad')}"
    )


def test_normal_delete_of_corrupt_object_fails(svc_server) -> None:
    _corrupt(svc_server, "bad")
    response = svc_server.client().request("DELETE", f"{PATH}/bad")
    assert response.status == 500
    assert "corrupt object" in response.json()["message"]


def test_list_with_corrupt_object_fails(svc_server) -> None:
    _corrupt(svc_server, "bad")
    assert svc_server.client().request("GET", PATH).status == 500


def test_unsafe_delete_removes_corrupt_object(gated) -> None:
    _corrupt(gated, "bad")
    client = gated.client()
    response = client.request("DELETE", f"{PATH}/bad", body={UNSAFE: True})
    assert response.status == 200
    assert response.json()["status"] == "Success"
    assert client.request("GET", f"{PATH}/bad").status == 404
    assert client.request("GET", PATH).status == 200


def test_unsafe_delete_is_ignored_without_the_gate(svc_server) -> None:
    _corrupt(svc_server, "bad")
    response = svc_server.client().request("DELETE", f"{PATH}/bad", body={UNSAFE: True})
    assert response.status == 500


def test_unsafe_delete_refuses_readable_object(gated) -> None:
    client = gated.client()
    client.request("POST", PATH, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "good"}})
    response = client.request("DELETE", f"{PATH}/good", params={UNSAFE: "true"})
    assert response.status == 409
    assert "unsafe deletion is not allowed because the object is decodable from storage" in response.json()["message"]
    assert client.request("GET", f"{PATH}/good").status == 200


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        ({"propagationPolicy": "Background"}, "propagationPolicy"),
        ({"gracePeriodSeconds": 0}, "gracePeriodSeconds"),
        ({"preconditions": {"uid": "x"}}, "preconditions"),
        ({"dryRun": ["All"]}, "dryRun"),
    ],
)
def test_unsafe_delete_with_other_options_is_rejected(gated, extra, option) -> None:
    _corrupt(gated, "bad")
    response = gated.client().request("DELETE", f"{PATH}/bad", body={UNSAFE: True, **extra})
    assert response.status == 400
    assert f"cannot be set together with .{option}" in response.json()["message"]


def test_unsafe_delete_needs_the_extra_verb(gated) -> None:
    async def all_but_unsafe(attributes: Attributes) -> tuple[Decision, str]:
        if attributes.verb == "unsafe-delete-ignore-read-errors":
            return Decision.NO_OPINION, "no unsafe deletes here"
        return Decision.ALLOW, ""

    gated.server.authorizer = Union([all_but_unsafe])
    _corrupt(gated, "bad")
    response = gated.client().request("DELETE", f"{PATH}/bad", body={UNSAFE: True})
    assert response.status == 403
    assert response.json()["message"] == (
        'configmaps "bad" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", '
        "reason: no unsafe deletes here"
    )
