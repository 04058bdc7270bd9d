"""kubectl against admission webhooks: a denial prints the webhook's message, a warning prints a
`Warning:` line (kubernetes profile, kubectl 1.32 and 1.35)."""

from __future__ import annotations

import pytest

from tests.apiserver.admission.webhook_fixtures import Webhook, hook, install, scripted_webhook
from tests.e2e.kubectl_runner import Kubectl

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"


@pytest.fixture
def webhook(tmp_path):
    with scripted_webhook(tmp_path / "webhook-tls") as running:
        yield running


def test_kubectl_prints_a_webhook_denial(svc_server_factory, kubectl_binary, webhook: Webhook) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    webhook.answers["deny"] = lambda review: {"allowed": False, "status": {"message": "settings are frozen"}}
    install(server, "ValidatingWebhookConfiguration", "freeze", [hook("freeze.example.com", webhook, "deny")])
    refused = Kubectl(kubectl_binary, server.kubeconfig).run("create", "-f", "-", stdin=CONFIGMAP, check=False)
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'Error from server: error when creating "STDIN": admission webhook "freeze.example.com" '
        "denied the request: settings are frozen"
    )


def test_kubectl_prints_webhook_warnings(svc_server_factory, kubectl_binary, webhook: Webhook) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    webhook.answers["warn"] = lambda review: {"allowed": True, "warnings": ["settings will be frozen soon"]}
    install(server, "ValidatingWebhookConfiguration", "warn", [hook("warn.example.com", webhook, "warn")])
    created = Kubectl(kubectl_binary, server.kubeconfig).run("create", "-f", "-", stdin=CONFIGMAP)
    assert created.stdout.strip() == "configmap/settings created"
    assert created.stderr.strip() == "Warning: settings will be frozen soon"
