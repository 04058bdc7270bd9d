"""TokenReview asks the authenticators requests meet, for the audiences the review names."""

from __future__ import annotations

from tests.apiserver.authn.conftest import AUTHN, ISSUER, create, service_account, token_for

TOKENS = 'static-token,alice,u-1,"devs"\n'


def _review(client, token: str, audiences: list[str] | None = None) -> dict:
    spec: dict = {"token": token}
    if audiences is not None:
        spec["audiences"] = audiences
    body = {"apiVersion": f"{AUTHN}/v1", "kind": "TokenReview", "spec": spec}
    return create(client, f"/apis/{AUTHN}/v1/tokenreviews", body)["status"]


def test_a_service_account_token_is_reviewed_with_its_user_and_audiences(svc_server) -> None:
    admin = svc_server.client()
    account = service_account(admin)
    status = _review(admin, token_for(admin))
    assert status["authenticated"] is True
    assert status["audiences"] == [ISSUER]
    assert status["user"]["username"] == "system:serviceaccount:default:robot"
    assert status["user"]["uid"] == account["metadata"]["uid"]
    assert "system:authenticated" in status["user"]["groups"]


def test_a_review_for_the_token_audience_succeeds_and_for_another_fails(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    token = token_for(admin, audiences=["vault", "other"])
    assert _review(admin, token, ["vault"])["audiences"] == ["vault"]
    failed = _review(admin, token, ["nobody"])
    assert "authenticated" not in failed
    assert failed["user"] == {}
    assert failed["error"] == 'token audiences ["vault" "other"] is invalid for the target audiences ["nobody"]'


def test_a_static_token_is_reviewed_for_the_api_audiences_only(svc_server_factory, tmp_path) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text(TOKENS)
    server = svc_server_factory(f"--token-auth-file={tokens}")
    admin = server.client()
    status = _review(admin, "static-token")
    assert status["user"] == {"username": "alice", "uid": "u-1", "groups": ["devs", "system:authenticated"]}
    assert status["audiences"] == [ISSUER]
    assert "authenticated" not in _review(admin, "static-token", ["vault"])


def test_an_unknown_token_is_not_authenticated(svc_server) -> None:
    status = _review(svc_server.client(), "nonsense")
    assert status == {"user": {}}


def test_a_review_without_a_token_is_a_bad_request(svc_server) -> None:
    body = {"apiVersion": f"{AUTHN}/v1", "kind": "TokenReview", "spec": {}}
    response = svc_server.client().request("POST", f"/apis/{AUTHN}/v1/tokenreviews", body=body)
    assert response.status == 400
    assert response.json()["message"] == "token is required for TokenReview in authentication"
