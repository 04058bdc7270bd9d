"""The Webhook authorizer against a real HTTPS SubjectAccessReview service (flags: --authorization-mode)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from svc.client.rest import RestClient
from tests.apiserver.authz.sar_peer import serve_sar_webhook

PODS = "/api/v1/namespaces/default/pods"


def _tokens(tmp_path):
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('alice-token,alice,u1,"devs"\nbob-token,bob,u2\n')
    return tokens


def _start(svc_server_factory, tmp_path, webhook, modes="Webhook", *flags):
    kubeconfig = webhook.write_kubeconfig(tmp_path / "sar.kubeconfig")
    return svc_server_factory(
        f"--token-auth-file={_tokens(tmp_path)}",
        f"--authorization-mode={modes}",
        f"--authorization-webhook-config-file={kubeconfig}",
        *flags,
    )


def _as(server, token):
    return RestClient(dataclasses.replace(server.anonymous_client().config, token=token))


def _get(server, token, path=PODS, **params):
    client = _as(server, token)
    try:
        return client.request("GET", path, params=params or None)
    finally:
        client.close()


def test_an_allowed_review_allows_and_carries_the_request(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: {"allowed": True}, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook)
        assert _get(server, "alice-token").status == 200
    review = webhook.reviews[0]
    assert review["kind"] == "SubjectAccessReview"
    assert review["apiVersion"].endswith("/v1beta1")
    spec = review["spec"]
    assert spec["user"] == "alice"
    assert spec["uid"] == "u1"
    assert spec["group"] == ["devs", "system:authenticated"]
    assert spec["resourceAttributes"] == {"verb": "list", "namespace": "default", "version": "v1", "resource": "pods"}


def test_v1_reviews_carry_groups_and_the_lists_selectors(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: {"allowed": True}, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook, "Webhook", "--authorization-webhook-version=v1")
        response = _get(server, "alice-token", fieldSelector="spec.nodeName=n1", labelSelector="app in (a,b),!tier")
        assert response.status == 200
    review = webhook.reviews[0]
    assert review["apiVersion"].endswith("/v1")
    assert review["spec"]["groups"] == ["devs", "system:authenticated"]
    attributes = review["spec"]["resourceAttributes"]
    assert attributes["fieldSelector"] == {
        "requirements": [{"key": "spec.nodeName", "operator": "In", "values": ["n1"]}]
    }
    assert attributes["labelSelector"] == {
        "requirements": [
            {"key": "app", "operator": "In", "values": ["a", "b"]},
            {"key": "tier", "operator": "DoesNotExist"},
        ]
    }


def test_an_access_reviews_label_selector_reaches_the_webhook(svc_server_factory, tmp_path):
    review = {
        "apiVersion": "authorization.svc/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": "bob",
            "resourceAttributes": {
                "verb": "list",
                "namespace": "default",
                "version": "v1",
                "resource": "pods",
                "labelSelector": {
                    "requirements": [
                        {"key": "app", "operator": "NotIn", "values": ["x"]},
                        {"key": "bad key!", "operator": "Exists"},
                        {"key": "tier", "operator": "Exists"},
                    ]
                },
            },
        },
    }
    with serve_sar_webhook(lambda review: {"allowed": True}, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook, "Webhook", "--authorization-webhook-version=v1")
        response = server.client().request("POST", "/apis/authorization.svc/v1/subjectaccessreviews", body=review)
    assert response.status == 201, response.body
    assert response.json()["status"]["allowed"] is True
    sent = webhook.reviews[-1]["spec"]["resourceAttributes"]
    assert sent["labelSelector"] == {
        "requirements": [
            {"key": "app", "operator": "NotIn", "values": ["x"]},
            {"key": "tier", "operator": "Exists"},
        ]
    }


def test_a_denial_stops_the_chain_with_the_webhooks_reason(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: {"allowed": False, "denied": True, "reason": "pods are off"}, tmp_path) as w:
        server = _start(svc_server_factory, tmp_path, w, "Webhook,AlwaysAllow")
        response = _get(server, "alice-token")
    assert response.status == 403
    assert response.json()["message"] == (
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default": '
        "pods are off"
    )


def test_no_opinion_passes_to_the_next_authorizer(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: {"allowed": False, "reason": "not mine"}, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook, "Webhook,AlwaysAllow")
        assert _get(server, "alice-token").status == 200


def test_a_failing_webhook_with_no_later_decision_is_an_internal_error(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: 403, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook, "Webhook")
        response = _get(server, "alice-token")
        assert response.status == 500
        assert response.headers["Content-Type"].startswith("text/plain")
        assert response.body.decode() == f'Internal Server Error: "{PODS}": the server answered 403'
        fallback = _start(svc_server_factory, tmp_path / "..", webhook, "Webhook,AlwaysAllow")
        assert _get(fallback, "alice-token").status == 200


def test_a_failing_webhook_then_a_refusal_is_still_an_internal_error(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: 403, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook, "Webhook,RBAC")
        assert _get(server, "alice-token").status == 500
        review = {"apiVersion": "authorization.svc/v1", "kind": "SubjectAccessReview"}
        review["spec"] = {"user": "alice", "resourceAttributes": {"verb": "get", "resource": "pods"}}
        answer = server.client().request("POST", "/apis/authorization.svc/v1/subjectaccessreviews", body=review)
        assert answer.json()["status"] == {"allowed": False, "evaluationError": "the server answered 403"}


def test_a_transient_failure_is_retried(svc_server_factory, tmp_path):
    answers = iter([500])

    def answer(review):
        return next(answers, {"allowed": True})

    with serve_sar_webhook(answer, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook)
        assert _get(server, "alice-token").status == 200
    assert len(webhook.reviews) == 2


def test_allowed_and_unauthorized_answers_are_cached(svc_server_factory, tmp_path):
    def answer(review):
        return {"allowed": review["spec"]["user"] == "alice"}

    with serve_sar_webhook(answer, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook)
        for _ in range(3):
            assert _get(server, "alice-token").status == 200
            assert _get(server, "bob-token").status == 403
    assert [review["spec"]["user"] for review in webhook.reviews] == ["alice", "bob"]


def test_a_zero_ttl_turns_the_cache_off(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: {"allowed": True}, tmp_path) as webhook:
        server = _start(
            svc_server_factory, tmp_path, webhook, "Webhook", "--authorization-webhook-cache-authorized-ttl=0"
        )
        for _ in range(2):
            assert _get(server, "alice-token").status == 200
    assert len(webhook.reviews) == 2


def test_a_cached_decision_expires_when_a_fake_clock_passes_its_ttl(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: {"allowed": True}, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook, "Webhook", "--enable-test-endpoints", "--clock=fake")
        server.client()  # the admin's, which moves the clock
        assert _get(server, "alice-token").status == 200
        server.advance_clock(299)
        assert _get(server, "alice-token").status == 200
        server.advance_clock(2)  # past the authorized TTL of 5 minutes
        assert _get(server, "alice-token").status == 200
    assert [review["spec"]["user"] for review in webhook.reviews if review["spec"]["user"] == "alice"] == ["alice"] * 2


def test_the_access_review_apis_answer_from_the_webhook(svc_server_factory, tmp_path):
    def answer(review):
        if review["spec"]["resourceAttributes"]["resource"] == "pods":
            return {"allowed": False, "denied": True, "reason": "nope"}
        return {"allowed": True}

    with serve_sar_webhook(answer, tmp_path) as w:
        server = _start(svc_server_factory, tmp_path, w, "Webhook,RBAC")
        client = _as(server, "alice-token")
        try:
            review = client.request(
                "POST",
                f"/apis/{server.server.profile.group('authorization.k8s.io')}/v1/selfsubjectaccessreviews",
                body={"spec": {"resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}}},
            )
        finally:
            client.close()
    status = review.json()["status"]
    assert status == {"allowed": False, "denied": True, "reason": "nope"}


def _parse(*flags: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from svc.apiserver.options import parse_options; parse_options(sys.argv[1:])"
    return subprocess.run([sys.executable, "-c", code, *flags], capture_output=True, text=True, timeout=60)


def test_webhook_mode_without_a_config_file_stops_start_up():
    result = _parse("--authorization-mode=Webhook")
    assert result.returncode == 2
    assert result.stderr == "Error: authorization-mode Webhook's authorization config file not passed\n"


def test_a_webhook_config_file_without_webhook_mode_stops_start_up(tmp_path):
    with serve_sar_webhook(lambda review: {"allowed": True}, tmp_path) as webhook:
        kubeconfig = webhook.write_kubeconfig(tmp_path / "sar.kubeconfig")
    result = _parse("--authorization-mode=RBAC", f"--authorization-webhook-config-file={kubeconfig}")
    assert result.returncode == 2
    assert result.stderr == "Error: cannot specify --authorization-webhook-config-file without mode Webhook\n"


def test_an_unusable_webhook_kubeconfig_stops_start_up(tmp_path):
    kubeconfig = tmp_path / "sar.kubeconfig"
    kubeconfig.write_text("clusters: []\n")
    result = _parse("--authorization-mode=Webhook", f"--authorization-webhook-config-file={kubeconfig}")
    assert result.returncode == 2
    assert result.stderr.startswith(f"Error: invalid authorization webhook config file {kubeconfig}: ")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        (
            "--authorization-webhook-version=v2",
            'invalid authorization webhook version "v2": supported values: "v1", "v1beta1"',
        ),
        (
            "--authorization-webhook-cache-authorized-ttl=soon",
            'invalid argument "soon" for "--authorization-webhook-cache-authorized-ttl" flag: '
            'time: invalid duration "soon"',
        ),
    ],
)
def test_bad_webhook_flags_stop_start_up(flag, message):
    result = _parse(flag)
    assert result.returncode == 2
    assert result.stderr == f"Error: {message}\n"


def _metric(server, metric: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    text = server.client().request("GET", "/metrics").body.decode()
    samples = [sample for family in text_string_to_metric_families(text) for sample in family.samples]
    return sum(s.value for s in samples if s.name == metric and all(s.labels.get(k) == v for k, v in labels.items()))


def test_round_trips_decisions_and_failing_open_are_counted(svc_server_factory, tmp_path):
    answers = iter([403])

    def answer(review):
        return next(answers, {"allowed": review["spec"]["user"] == "alice"})

    with serve_sar_webhook(answer, tmp_path) as webhook:
        server = _start(svc_server_factory, tmp_path, webhook, "Webhook,AlwaysAllow")
        assert _get(server, "bob-token").status == 200  # the webhook fails, AlwaysAllow allows
        assert _get(server, "alice-token").status == 200  # the webhook allows
    evaluations = "apiserver_authorization_webhook_evaluations_total"
    assert _metric(server, evaluations, name="webhook", result="error") == 1
    assert _metric(server, evaluations, name="webhook", result="success") == 1
    assert _metric(server, "apiserver_authorization_webhook_duration_seconds_count", name="webhook") == 2
    fail_open = "apiserver_authorization_webhook_evaluations_fail_open_total"
    assert _metric(server, fail_open, name="webhook", result="error") == 1
    decisions = "apiserver_authorization_decisions_total"
    assert _metric(server, decisions, type="Webhook", name="webhook", decision="allowed") == 1
    assert _metric(server, decisions, type="AlwaysAllow", name="alwaysallow", decision="allowed") == 1
