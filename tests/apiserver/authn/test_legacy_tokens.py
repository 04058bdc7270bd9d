"""Legacy Secret-based service-account tokens: accepted while the Secret holds them, and tracked."""

from __future__ import annotations

import datetime
import time

import pytest

from tests.apiserver.authn.conftest import Keyed, create, service_account, whoami

LAST_USED = "svc.io/legacy-token-last-used"


def _legacy_token(keyed: Keyed, account: dict, secret: str = "robot-token") -> str:
    metadata = account["metadata"]
    claims = {
        "sub": f"system:serviceaccount:default:{metadata['name']}",
        "svc.io/serviceaccount/namespace": "default",
        "svc.io/serviceaccount/secret.name": secret,
        "svc.io/serviceaccount/service-account.name": metadata["name"],
        "svc.io/serviceaccount/service-account.uid": metadata["uid"],
    }
    return keyed.sign(claims, issuer="svc/serviceaccount")


def _store(keyed: Keyed, token: str, name: str = "robot-token") -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "annotations": {"svc.io/service-account.name": "robot"}},
        "type": "svc.io/service-account-token",
        "stringData": {"token": token},
    }
    create(keyed.server.client(), "/api/v1/namespaces/default/secrets", secret)


def test_a_legacy_token_authenticates_and_marks_its_secret_as_used_today(keyed) -> None:
    account = service_account(keyed.server.client())
    token = _legacy_token(keyed, account)
    _store(keyed, token)
    response = whoami(keyed.server, token)
    assert response.status == 201
    assert response.json()["status"]["userInfo"]["username"] == "system:serviceaccount:default:robot"
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    admin = keyed.server.client()
    labels: dict = {}
    for _ in range(200):
        labels = (
            admin.request("GET", "/api/v1/namespaces/default/secrets/robot-token").json()["metadata"].get("labels", {})
        )
        if LAST_USED in labels:
            break
        time.sleep(0.01)
    assert labels.get(LAST_USED) == today


def test_a_legacy_token_the_secret_does_not_hold_is_rejected(keyed) -> None:
    account = service_account(keyed.server.client())
    _store(keyed, "something-else")
    assert whoami(keyed.server, _legacy_token(keyed, account)).status == 401


def test_a_legacy_token_without_its_secret_is_rejected(keyed) -> None:
    account = service_account(keyed.server.client())
    assert whoami(keyed.server, _legacy_token(keyed, account)).status == 401


@pytest.fixture
def keyed_without_lookup(svc_server_factory, signing_key) -> Keyed:
    key, path = signing_key
    server = svc_server_factory(
        f"--service-account-signing-key-file={path}",
        f"--service-account-key-file={path}",
        "--service-account-lookup=false",
    )
    return Keyed(server, key)


def test_without_lookup_a_legacy_token_needs_no_secret(keyed_without_lookup) -> None:
    account = service_account(keyed_without_lookup.server.client())
    assert whoami(keyed_without_lookup.server, _legacy_token(keyed_without_lookup, account)).status == 201


def test_a_legacy_token_with_a_mismatched_subject_is_rejected(keyed) -> None:
    account = service_account(keyed.server.client())
    claims = {
        "sub": "system:serviceaccount:default:someone-else",
        "svc.io/serviceaccount/namespace": "default",
        "svc.io/serviceaccount/secret.name": "robot-token",
        "svc.io/serviceaccount/service-account.name": "robot",
        "svc.io/serviceaccount/service-account.uid": account["metadata"]["uid"],
    }
    token = keyed.sign(claims, issuer="svc/serviceaccount")
    _store(keyed, token)
    assert whoami(keyed.server, token).status == 401
