"""Webhook token authentication against a real HTTPS TokenReview service on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from svc.apiserver.webhook_kubeconfig import DEFAULT_BACKOFF
from tests.apiserver.authn.peers import Authority, Webhook, serve_https, token_client, whoami

USERS = {
    "good-token": {"username": "carol", "uid": "u-7", "groups": ["qa"], "extra": {"example.com/team": ["blue"]}},
}


@pytest.fixture
def webhook(tmp_path: Path) -> Iterator[tuple[Webhook, str]]:
    authority = Authority.create("webhook-ca")
    hook = Webhook(USERS)
    with serve_https(hook.app, authority, tmp_path) as url:
        kubeconfig = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "hook", "cluster": {"server": f"{url}/review", "certificate-authority": "ca.crt"}}],
            "users": [{"name": "apiserver", "user": {"token": "shared-secret"}}],
            "contexts": [{"name": "hook", "context": {"cluster": "hook", "user": "apiserver"}}],
            "current-context": "hook",
        }
        (tmp_path / "ca.crt").write_text(authority.pem)
        path = tmp_path / "webhook.kubeconfig"
        path.write_text(yaml.safe_dump(kubeconfig))
        yield hook, str(path)


def test_webhook_names_the_user(svc_server_factory, webhook) -> None:
    hook, config = webhook
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}")
    status, user = whoami(token_client(server, "good-token"))
    assert status == 201
    assert user == {
        "username": "carol",
        "uid": "u-7",
        "groups": ["qa", "system:authenticated"],
        "extra": {"example.com/team": ["blue"]},
    }
    (review,) = hook.reviews
    assert review["apiVersion"] == "authentication.svc/v1beta1"
    assert review["spec"]["token"] == "good-token"


def test_version_flag_chooses_the_review_version(svc_server_factory, webhook) -> None:
    hook, config = webhook
    server = svc_server_factory(
        f"--authentication-token-webhook-config-file={config}", "--authentication-token-webhook-version=v1"
    )
    whoami(token_client(server, "good-token"))
    assert hook.reviews[0]["apiVersion"] == "authentication.svc/v1"


def test_rejected_token_is_401(svc_server_factory, webhook) -> None:
    _, config = webhook
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}")
    assert whoami(token_client(server, "bad-token"))[0] == 401


def test_answers_are_cached_both_ways(svc_server_factory, webhook) -> None:
    hook, config = webhook
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}")
    for _ in range(3):
        assert whoami(token_client(server, "good-token"))[0] == 201
        assert whoami(token_client(server, "bad-token"))[0] == 401
    assert len(hook.reviews) == 2


def test_zero_ttl_disables_the_cache(svc_server_factory, webhook) -> None:
    hook, config = webhook
    server = svc_server_factory(
        f"--authentication-token-webhook-config-file={config}", "--authentication-token-webhook-cache-ttl=0s"
    )
    for _ in range(2):
        whoami(token_client(server, "good-token"))
    assert len(hook.reviews) == 2


def test_failing_webhook_is_retried_then_401_not_500_and_is_not_cached(svc_server_factory, webhook) -> None:
    hook, config = webhook
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}")
    hook.fail = True
    assert whoami(token_client(server, "good-token"))[0] == 401
    assert len(hook.reviews) == DEFAULT_BACKOFF.steps
    hook.fail = False
    assert whoami(token_client(server, "good-token"))[0] == 201


def test_webhook_is_called_with_the_kubeconfig_credentials(svc_server_factory, webhook) -> None:
    hook, config = webhook
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}")
    whoami(token_client(server, "good-token"))
    assert hook.authorizations == ["Bearer shared-secret"]


def test_unreachable_webhook_is_401(svc_server_factory, tmp_path) -> None:
    kubeconfig = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "hook", "cluster": {"server": "https://127.0.0.1:1/review"}}],
        "users": [{"name": "apiserver", "user": {}}],
        "contexts": [{"name": "hook", "context": {"cluster": "hook", "user": "apiserver"}}],
        "current-context": "hook",
    }
    path = tmp_path / "webhook.kubeconfig"
    path.write_text(yaml.safe_dump(kubeconfig))
    server = svc_server_factory(f"--authentication-token-webhook-config-file={path}")
    assert whoami(token_client(server, "good-token"))[0] == 401


def test_a_token_review_asks_the_webhook_too(svc_server_factory, webhook) -> None:
    _, config = webhook
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}")
    review = {"apiVersion": "authentication.svc/v1", "kind": "TokenReview", "spec": {"token": "good-token"}}
    answer = server.client().request("POST", "/apis/authentication.svc/v1/tokenreviews", body=review).json()
    assert answer["status"]["authenticated"] is True
    assert answer["status"]["user"]["username"] == "carol"


def _token_review(server, audiences: list[str]) -> dict:
    review = {"apiVersion": "authentication.svc/v1", "kind": "TokenReview", "spec": {"token": "good-token"}}
    if audiences:
        review["spec"]["audiences"] = audiences
    return server.client().request("POST", "/apis/authentication.svc/v1/tokenreviews", body=review).json()["status"]


def test_a_requests_review_asks_for_the_api_audiences(svc_server_factory, webhook) -> None:
    hook, config = webhook
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}", "--api-audiences=api-1,api-2")
    assert whoami(token_client(server, "good-token"))[0] == 201
    assert hook.reviews[0]["spec"]["audiences"] == ["api-1", "api-2"]


def test_an_answer_for_other_audiences_does_not_authenticate(svc_server_factory, webhook) -> None:
    hook, config = webhook
    hook.audiences = ["somebody-else"]
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}", "--api-audiences=api-1")
    assert whoami(token_client(server, "good-token"))[0] == 401


def test_an_answer_naming_no_audience_grants_the_api_audiences_asked_for(svc_server_factory, webhook) -> None:
    _, config = webhook
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}", "--api-audiences=api-1")
    assert _token_review(server, ["api-1", "elsewhere"])["audiences"] == ["api-1"]
    assert _token_review(server, ["elsewhere"]).get("authenticated") is not True


def test_a_token_reviews_audiences_are_sent_and_answered(svc_server_factory, webhook) -> None:
    hook, config = webhook
    hook.audiences = ["vault"]
    server = svc_server_factory(f"--authentication-token-webhook-config-file={config}", "--api-audiences=api-1")
    status = _token_review(server, ["vault", "db"])
    assert status["authenticated"] is True
    assert status["audiences"] == ["vault"]
    assert hook.reviews[-1]["spec"]["audiences"] == ["vault", "db"]


def test_a_cached_answer_expires_when_a_fake_clock_passes_its_ttl(svc_server_factory, webhook) -> None:
    hook, config = webhook
    server = svc_server_factory(
        f"--authentication-token-webhook-config-file={config}", "--enable-test-endpoints", "--clock=fake"
    )
    server.client()  # the admin's, which moves the clock
    for _ in range(2):
        assert whoami(token_client(server, "good-token"))[0] == 201
    server.advance_clock(119)
    whoami(token_client(server, "good-token"))
    assert len(hook.reviews) == 1
    server.advance_clock(2)  # past the default cache TTL of 2 minutes
    whoami(token_client(server, "good-token"))
    assert len(hook.reviews) == 2
