"""Authentication (x509, anonymous), authorization modes and impersonation."""

from __future__ import annotations

import dataclasses


def test_admin_certificate_is_system_masters(svc_server) -> None:
    review = {"apiVersion": "authentication.svc/v1", "kind": "SelfSubjectReview", "metadata": {}}
    response = svc_server.client().request("POST", "/apis/authentication.svc/v1/selfsubjectreviews", body=review)
    assert response.status == 201
    assert response.json()["status"]["userInfo"] == {
        "username": "svc-admin",
        "groups": ["system:masters", "system:authenticated"],
    }


def test_always_deny_forbids_anonymous_with_upstream_message(svc_server_factory) -> None:
    server = svc_server_factory("--authorization-mode=AlwaysDeny")
    response = server.anonymous_client().request("GET", "/api/v1/namespaces/default/pods")
    assert response.status == 403
    assert response.json()["message"] == (
        'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" '
        'in the namespace "default": Everything is forbidden.'
    )


def test_always_deny_still_allows_system_masters(svc_server_factory) -> None:
    server = svc_server_factory("--authorization-mode=AlwaysDeny")
    assert server.client().request("GET", "/api/v1/namespaces").status == 200


def test_anonymous_auth_off_is_401(svc_server_factory) -> None:
    server = svc_server_factory("--anonymous-auth=false")
    response = server.anonymous_client().request("GET", "/api/v1/namespaces")
    assert response.status == 401
    assert response.json()["reason"] == "Unauthorized"


def test_non_resource_forbidden_message(svc_server_factory) -> None:
    server = svc_server_factory("--authorization-mode=AlwaysDeny")
    response = server.anonymous_client().request("GET", "/version")
    assert response.status == 403
    assert response.json()["message"] == (
        'forbidden: User "system:anonymous" cannot get path "/version": Everything is forbidden.'
    )


def test_impersonation_headers_change_the_user(svc_server) -> None:
    review = {"apiVersion": "authentication.svc/v1", "kind": "SelfSubjectReview", "metadata": {}}
    response = svc_server.client().request(
        "POST",
        "/apis/authentication.svc/v1/selfsubjectreviews",
        body=review,
        headers={"Impersonate-User": "bob", "Impersonate-Group": "devs", "Impersonate-Extra-Scopes": "view"},
    )
    assert response.json()["status"]["userInfo"] == {
        "username": "bob",
        "groups": ["devs", "system:authenticated"],
        "extra": {"scopes": ["view"]},
    }


def test_impersonation_is_authorized(svc_server_factory) -> None:
    server = svc_server_factory("--authorization-mode=AlwaysDeny")
    response = server.anonymous_client().request("GET", "/api/v1/namespaces", headers={"Impersonate-User": "bob"})
    assert response.status == 403
    assert 'cannot impersonate resource "users"' in response.json()["message"]


def test_access_review_asks_the_authorizer(svc_server_factory) -> None:
    server = svc_server_factory("--authorization-mode=AlwaysDeny")
    review = {
        "apiVersion": "authorization.svc/v1",
        "kind": "SubjectAccessReview",
        "metadata": {},
        "spec": {"user": "bob", "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}},
    }
    denied = server.client().request("POST", "/apis/authorization.svc/v1/subjectaccessreviews", body=review)
    assert denied.json()["status"] == {"allowed": False, "reason": "Everything is forbidden."}
    review["spec"]["groups"] = ["system:masters"]
    allowed = server.client().request("POST", "/apis/authorization.svc/v1/subjectaccessreviews", body=review)
    assert allowed.json()["status"] == {"allowed": True}


def test_static_token_authenticates(svc_server_factory, tmp_path) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('s3cret,alice,uid-1,"devs,system:masters"\n')
    server = svc_server_factory(f"--token-auth-file={tokens}", "--authorization-mode=AlwaysDeny")
    config = server.anonymous_client().config
    from svc.client.rest import RestClient

    client = RestClient(dataclasses.replace(config, token="s3cret"))
    review = {"apiVersion": "authentication.svc/v1", "kind": "SelfSubjectReview", "metadata": {}}
    body = client.request("POST", "/apis/authentication.svc/v1/selfsubjectreviews", body=review).json()
    assert body["status"]["userInfo"] == {
        "username": "alice",
        "uid": "uid-1",
        "groups": ["devs", "system:masters", "system:authenticated"],
    }
    wrong = RestClient(dataclasses.replace(config, token="nope"))
    assert wrong.request("GET", "/api/v1/namespaces").status == 401
    client.close()
    wrong.close()
