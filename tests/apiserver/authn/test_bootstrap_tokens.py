"""Bootstrap tokens: `<id>.<secret>` against `bootstrap-token-<id>` Secrets in the system namespace."""

from __future__ import annotations

import datetime

import pytest

from tests.apiserver.authn.conftest import create, whoami

TOKEN = "abcdef.0123456789abcdef"


def _secret(**data: str) -> dict:
    fields = {"token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true"}
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "bootstrap-token-abcdef"},
        "type": "bootstrap.svc.io/token",
        "stringData": {**fields, **data},
    }


@pytest.fixture
def bootstrap(svc_server_factory):
    return svc_server_factory("--enable-bootstrap-token-auth")


def _add(server, secret: dict) -> None:
    create(server.client(), "/api/v1/namespaces/svc-system/secrets", secret)


def test_a_valid_token_is_a_bootstrapper_with_its_extra_groups(bootstrap) -> None:
    _add(bootstrap, _secret(**{"auth-extra-groups": "system:bootstrappers:worker"}))
    response = whoami(bootstrap, TOKEN)
    assert response.status == 201
    user = response.json()["status"]["userInfo"]
    assert user["username"] == "system:bootstrap:abcdef"
    assert user["groups"] == ["system:bootstrappers", "system:bootstrappers:worker", "system:authenticated"]


def test_an_expired_token_is_rejected(bootstrap) -> None:
    past = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    _add(bootstrap, _secret(expiration=past))
    assert whoami(bootstrap, TOKEN).status == 401


def test_a_token_not_expired_yet_is_accepted(bootstrap) -> None:
    future = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    _add(bootstrap, _secret(expiration=future))
    assert whoami(bootstrap, TOKEN).status == 201


def test_a_token_without_the_authentication_usage_is_rejected(bootstrap) -> None:
    _add(bootstrap, _secret(**{"usage-bootstrap-authentication": "false"}))
    assert whoami(bootstrap, TOKEN).status == 401


def test_a_wrong_secret_half_is_rejected(bootstrap) -> None:
    _add(bootstrap, _secret())
    assert whoami(bootstrap, "abcdef.ffffffffffffffff").status == 401


def test_a_secret_of_another_type_is_ignored(bootstrap) -> None:
    _add(bootstrap, {**_secret(), "type": "Opaque"})
    assert whoami(bootstrap, TOKEN).status == 401


def test_malformed_extra_groups_reject_the_token(bootstrap) -> None:
    _add(bootstrap, _secret(**{"auth-extra-groups": "admins"}))
    assert whoami(bootstrap, TOKEN).status == 401


def test_bootstrap_tokens_are_off_without_the_flag(svc_server) -> None:
    _add(svc_server, _secret())
    assert whoami(svc_server, TOKEN).status == 401
