"""Admission metrics: each phase, each plugin and each webhook call timed and counted with upstream's labels."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from svc.testing.harness import RunningServer
from tests.apiserver.admission.test_webhooks import _dead_url, create
from tests.apiserver.admission.webhook_fixtures import Webhook, configmap, hook, install, scripted_webhook


@pytest.fixture
def webhook(tmp_path) -> Iterator[Webhook]:
    with scripted_webhook(tmp_path / "webhook-tls") as running:
        yield running


def _value(server: RunningServer, metric: str, **labels: str) -> float:
    text = server.client().request("GET", "/metrics").body.decode()
    samples = [sample for family in text_string_to_metric_families(text) for sample in family.samples]
    return sum(s.value for s in samples if s.name == metric and all(s.labels.get(k) == v for k, v in labels.items()))


def test_phases_and_plugins_are_timed_with_the_outcome(svc_server: RunningServer) -> None:
    assert create(svc_server, configmap("timed")).status == 201
    assert create(svc_server, configmap("timed")).status == 409
    missing = (
        svc_server.client().request("POST", "/api/v1/namespaces/nowhere/configmaps", body=configmap("lost")).status
    )
    assert missing == 404
    step = "apiserver_admission_step_admission_duration_seconds_count"
    assert _value(svc_server, step, type="admit", operation="CREATE", rejected="false") >= 3
    assert _value(svc_server, step, type="validate", operation="CREATE", rejected="true") == 1
    plugin = "apiserver_admission_controller_admission_duration_seconds_count"
    refusals = {"name": "NamespaceLifecycle", "type": "validate", "operation": "CREATE", "rejected": "true"}
    assert _value(svc_server, plugin, **refusals) == 1


def test_webhook_calls_denials_and_failures_are_counted(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["deny"] = lambda review: {"allowed": False, "status": {"message": "no", "code": 422}}
    install(svc_server, "ValidatingWebhookConfiguration", "denier", [hook("deny.example.com", webhook, "deny")])
    dead = hook("dead.example.com", webhook, "x", clientConfig={"url": _dead_url(), "caBundle": webhook.tls.ca_bundle})
    install(svc_server, "MutatingWebhookConfiguration", "dead", [{**dead, "failurePolicy": "Ignore"}])
    assert create(svc_server, configmap("refused")).status == 422
    denied = {"name": "deny.example.com", "type": "validating", "operation": "CREATE"}
    assert _value(svc_server, "apiserver_admission_webhook_request_total", code="422", rejected="true", **denied) == 1
    assert _value(svc_server, "apiserver_admission_webhook_admission_duration_seconds_count", **denied) == 1
    # Exposed without `_total` as upstream's; the parser adds it to counter samples.
    assert (
        "\napiserver_admission_webhook_rejection_count{" in svc_server.client().request("GET", "/metrics").body.decode()
    )
    rejections = "apiserver_admission_webhook_rejection_count_total"
    assert _value(svc_server, rejections, error_type="no_error", rejection_code="422", **denied) == 1
    assert _value(svc_server, "apiserver_admission_webhook_fail_open_count_total", name="dead.example.com") == 1
    failed = {"name": "dead.example.com", "type": "admit", "code": "0", "rejected": "true"}
    assert _value(svc_server, "apiserver_admission_webhook_request_total", **failed) == 1
