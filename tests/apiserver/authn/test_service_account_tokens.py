"""Bound service-account tokens authenticate requests while valid, and stop when they no longer are."""

from __future__ import annotations

import time

import jwt
import pytest

from tests.apiserver.authn.conftest import (
    AUTHN,
    claims_for,
    pod,
    service_account,
    token_client,
    token_for,
    whoami,
)


def test_a_requested_token_authenticates_as_the_service_account(svc_server) -> None:
    admin = svc_server.client()
    account = service_account(admin)
    response = whoami(svc_server, token_for(admin))
    assert response.status == 201, response.json()
    user = response.json()["status"]["userInfo"]
    assert user["username"] == "system:serviceaccount:default:robot"
    assert user["uid"] == account["metadata"]["uid"]
    assert user["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]
    assert user["extra"]["authentication.svc.io/credential-id"][0].startswith("JTI=")


def test_a_pod_bound_token_names_the_pod_and_stops_working_when_the_pod_is_deleted(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    bound = pod(admin, "worker", "robot")
    token = token_for(admin, boundObjectRef={"apiVersion": "v1", "kind": "Pod", "name": "worker"})
    user = whoami(svc_server, token).json()["status"]["userInfo"]
    assert user["extra"]["authentication.svc.io/pod-name"] == ["worker"]
    assert user["extra"]["authentication.svc.io/pod-uid"] == [bound["metadata"]["uid"]]
    deleted = admin.request("DELETE", "/api/v1/namespaces/default/pods/worker", params={"gracePeriodSeconds": "0"})
    assert deleted.status == 200
    assert whoami(svc_server, token).status == 401


def test_a_token_of_a_recreated_service_account_is_rejected(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    token = token_for(admin)
    assert admin.request("DELETE", "/api/v1/namespaces/default/serviceaccounts/robot").status == 200
    assert whoami(svc_server, token).status == 401
    service_account(admin)
    assert whoami(svc_server, token).status == 401


def test_a_secret_bound_token_stops_working_when_the_secret_is_deleted(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "anchor"}}
    assert admin.request("POST", "/api/v1/namespaces/default/secrets", body=secret).status == 201
    token = token_for(admin, boundObjectRef={"apiVersion": "v1", "kind": "Secret", "name": "anchor"})
    assert whoami(svc_server, token).status == 201
    assert admin.request("DELETE", "/api/v1/namespaces/default/secrets/anchor").status == 200
    assert whoami(svc_server, token).status == 401


def test_an_expired_token_is_rejected_after_the_leeway(keyed) -> None:
    account = service_account(keyed.server.client())
    recently = keyed.sign(claims_for(account, lifetime=-30))
    assert whoami(keyed.server, recently).status == 201  # within upstream's one-minute leeway
    expired = keyed.sign(claims_for(account, lifetime=-120))
    assert whoami(keyed.server, expired).status == 401


def test_a_token_not_valid_yet_is_rejected(keyed) -> None:
    account = service_account(keyed.server.client())
    claims = claims_for(account)
    claims["nbf"] = claims["iat"] = int(time.time()) + 600
    assert whoami(keyed.server, keyed.sign(claims)).status == 401


def test_a_token_for_another_audience_is_rejected(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    token = token_for(admin, audiences=["vault"])
    response = whoami(svc_server, token)
    assert response.status == 401
    assert response.json()["reason"] == "Unauthorized"


def test_a_token_of_an_unknown_issuer_is_rejected(keyed) -> None:
    account = service_account(keyed.server.client())
    token = keyed.sign(claims_for(account), issuer="https://elsewhere.example")
    assert whoami(keyed.server, token).status == 401


def test_a_token_signed_by_another_key_is_rejected(svc_server, signing_key) -> None:
    admin = svc_server.client()
    account = service_account(admin)
    key, _ = signing_key
    forged = jwt.encode({"iss": "https://svc.default.svc.cluster.local", **claims_for(account)}, key, algorithm="ES256")
    assert whoami(svc_server, forged).status == 401


@pytest.mark.parametrize(
    "token",
    [
        "not-a-jwt",
        "a.b.c",
        "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL3N2Yy5kZWZhdWx0LnN2Yy5jbHVzdGVyLmxvY2FsIn0.",
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJodHRwczovL3N2Yy5kZWZhdWx0LnN2Yy5jbHVzdGVyLmxvY2FsIn0.AAAA",
        "eyJhbGciOiJFUzI1NiJ9.WyJub3QiLCJhbiIsIm9iamVjdCJd.AAAA",
        "\u00e9t\u00e9",
        "\u00e9.eyJpc3MiOiJodHRwczovL3N2Yy5kZWZhdWx0LnN2Yy5jbHVzdGVyLmxvY2FsIn0.AAAA",
    ],
)
def test_malformed_tokens_get_401_not_500(svc_server, token: str) -> None:
    client = token_client(svc_server, token)
    response = client.request("GET", "/api/v1/namespaces/default/configmaps")
    assert response.status == 401


def test_a_token_with_malformed_private_claims_gets_401(keyed) -> None:
    account = service_account(keyed.server.client())
    claims = claims_for(account)
    claims["svc.io"] = {"namespace": 7, "serviceaccount": "robot"}
    assert whoami(keyed.server, keyed.sign(claims)).status == 401
    claims["svc.io"] = {"namespace": "default", "serviceaccount": {"name": ["robot"], "uid": 1}}
    assert whoami(keyed.server, keyed.sign(claims)).status == 401


def test_a_token_with_a_malformed_expiry_gets_401(keyed) -> None:
    account = service_account(keyed.server.client())
    claims = claims_for(account)
    claims["exp"] = "tomorrow"
    assert whoami(keyed.server, keyed.sign(claims)).status == 401


def test_the_token_authenticates_resource_requests(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    client = token_client(svc_server, token_for(admin))
    assert client.request("GET", f"/apis/{AUTHN}/v1").status == 200
    assert client.request("GET", "/api/v1/namespaces/default/serviceaccounts/robot").status == 200
