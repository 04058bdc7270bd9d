"""`--authorization-config`: ordered authorizers, webhooks with CEL match conditions and failure
policies, validation errors at start, and reload on change."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from tests.apiserver.authz.sar_peer import serve_sar_webhook
from tests.apiserver.authz.test_webhook_authorizer import _get, _tokens

GROUP = "apiserver.config.k8s.io"


def _webhook(name, kubeconfig, **extra):
    spec = {
        "timeout": "3s",
        "subjectAccessReviewVersion": "v1",
        "matchConditionSubjectAccessReviewVersion": "v1",
        "failurePolicy": "NoOpinion",
        "connectionInfo": {"type": "KubeConfigFile", "kubeConfigFile": str(kubeconfig)},
        **extra,
    }
    return {"type": "Webhook", "name": name, "webhook": spec}


def _write(path, *authorizers, group=GROUP):
    document = {"apiVersion": f"{group}/v1", "kind": "AuthorizationConfiguration", "authorizers": list(authorizers)}
    path.write_text(yaml.safe_dump(document))
    return path


def _start(svc_server_factory, tmp_path, config):
    return svc_server_factory(
        "--brand-profile=kubernetes", f"--token-auth-file={_tokens(tmp_path)}", f"--authorization-config={config}"
    )


def test_two_webhooks_and_a_match_condition_that_skips_the_first(svc_server_factory, tmp_path):
    deny = {"allowed": False, "denied": True, "reason": "alice may not"}
    with (
        serve_sar_webhook(lambda review: deny, tmp_path / "..") as first,
        serve_sar_webhook(lambda review: {"allowed": True}, tmp_path) as second,
    ):
        config = _write(
            tmp_path / "authz.yaml",
            _webhook(
                "first",
                first.write_kubeconfig(tmp_path / "first.kubeconfig"),
                matchConditions=[{"expression": "request.user == 'alice'"}],
            ),
            _webhook("second", second.write_kubeconfig(tmp_path / "second.kubeconfig")),
        )
        server = _start(svc_server_factory, tmp_path, config)
        assert _get(server, "bob-token").status == 200
        assert first.reviews == []
        denied = _get(server, "alice-token")
        assert denied.status == 403
        assert denied.json()["message"].endswith(": alice may not")
    assert [review["spec"]["user"] for review in second.reviews] == ["bob"]


def test_failure_policy_deny_stops_the_chain_when_the_webhook_fails(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: 403, tmp_path) as webhook:
        kubeconfig = webhook.write_kubeconfig(tmp_path / "sar.kubeconfig")
        config = _write(
            tmp_path / "authz.yaml",
            _webhook("strict", kubeconfig, failurePolicy="Deny"),
            {"type": "AlwaysAllow", "name": "allow"},
        )
        server = _start(svc_server_factory, tmp_path, config)
        assert _get(server, "alice-token").status == 500  # upstream: a Deny with an error is an internal error
        _write(
            tmp_path / "authz.yaml",
            _webhook("lenient", kubeconfig, failurePolicy="NoOpinion"),
            {"type": "AlwaysAllow", "name": "allow"},
        )
        assert server.call(server.server.authorization.reload()) is True
        assert _get(server, "alice-token").status == 200


def test_caching_switches_turn_the_cache_off(svc_server_factory, tmp_path):
    with serve_sar_webhook(lambda review: {"allowed": True}, tmp_path) as webhook:
        kubeconfig = webhook.write_kubeconfig(tmp_path / "sar.kubeconfig")
        config = _write(tmp_path / "authz.yaml", _webhook("w", kubeconfig, cacheAuthorizedRequests=False))
        server = _start(svc_server_factory, tmp_path, config)
        for _ in range(2):
            assert _get(server, "alice-token").status == 200
    assert len(webhook.reviews) == 2


def _reload_metrics(server) -> dict[str, float]:
    text = server.server.metrics.render().decode()
    found = {}
    for line in text.splitlines():
        if line.startswith("apiserver_authorization_config_controller_automatic_reloads_total{"):
            status = line.split('status="')[1].split('"')[0]
            found[status] = float(line.rsplit(" ", 1)[1])
    return found


def test_a_changed_file_is_reloaded_and_a_bad_one_keeps_the_old_chain(svc_server_factory, tmp_path):
    config = _write(tmp_path / "authz.yaml", {"type": "AlwaysDeny", "name": "deny"})
    server = _start(svc_server_factory, tmp_path, config)
    assert _get(server, "alice-token").status == 403
    assert server.call(server.server.authorization.reload()) is False  # unchanged
    _write(config, {"type": "AlwaysAllow", "name": "allow"})
    assert server.call(server.server.authorization.reload()) is True
    assert _get(server, "alice-token").status == 200
    _write(config, {"type": "Nope", "name": "allow"})
    assert server.call(server.server.authorization.reload()) is False
    assert _get(server, "alice-token").status == 200
    assert _reload_metrics(server) == {"success": 1.0, "failure": 1.0}


def _parse(*flags: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from svc.apiserver.options import parse_options; parse_options(sys.argv[1:])"
    return subprocess.run(
        [sys.executable, "-c", code, "--brand-profile=kubernetes", *flags], capture_output=True, text=True, timeout=60
    )


def test_the_config_excludes_the_mode_flag(tmp_path):
    config = _write(tmp_path / "authz.yaml", {"type": "RBAC", "name": "rbac"})
    result = _parse(f"--authorization-config={config}", "--authorization-mode=RBAC")
    assert result.returncode == 2
    assert result.stderr == "Error: --authorization-mode can not be specified when --authorization-config flag is set\n"


def test_the_config_excludes_the_webhook_flags(tmp_path):
    config = _write(tmp_path / "authz.yaml", {"type": "RBAC", "name": "rbac"})
    result = _parse(f"--authorization-config={config}", "--authorization-webhook-version=v1")
    assert result.returncode == 2
    assert result.stderr == (
        "Error: --authorization-webhook-version can not be specified when --authorization-config flag is set\n"
    )


@pytest.mark.parametrize(
    ("authorizers", "message"),
    [
        ([], "authorizers: Required value: at least one authorization mode must be defined"),
        (
            [{"type": "Foo", "name": "foo"}],
            'authorizers[0].type: Unsupported value: "Foo": supported values: '
            '"AlwaysAllow", "AlwaysDeny", "ABAC", "Node", "RBAC", "Webhook"',
        ),
        (
            [{"type": "RBAC", "name": "a"}, {"type": "RBAC", "name": "b"}],
            'authorizers[1].type: Duplicate value: "RBAC"',
        ),
        ([{"type": "RBAC"}], "authorizers[0].name: Required value"),
        ([{"type": "Webhook", "name": "w"}], "authorizers[0].webhook: Required value: required when type=Webhook"),
        (
            [{"type": "RBAC", "name": "r", "webhook": {}}],
            'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook',
        ),
    ],
)
def test_bad_configs_stop_start_up_with_one_line(tmp_path, authorizers, message):
    config = _write(tmp_path / "authz.yaml", *authorizers)
    result = _parse(f"--authorization-config={config}")
    assert result.returncode == 2
    assert result.stderr == f"Error: {message}\n"


def test_bad_webhook_settings_are_all_reported(tmp_path):
    webhook = {
        "type": "Webhook",
        "name": "w",
        "webhook": {
            "timeout": "45s",
            "subjectAccessReviewVersion": "v2",
            "failurePolicy": "Maybe",
            "connectionInfo": {"type": "KubeConfigFile", "kubeConfigFile": "relative.kubeconfig"},
            "matchConditions": [{"expression": "request.user =="}],
        },
    }
    result = _parse(f"--authorization-config={_write(tmp_path / 'authz.yaml', webhook)}")
    assert result.returncode == 2
    line = result.stderr
    assert line.startswith("Error: [authorizers[0].webhook.timeout")  # one aggregate, as upstream prints it
    for part in (
        'authorizers[0].webhook.timeout: Invalid value: "45s": must be > 0s and <= 30s',
        'authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"',
        "authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value",
        'authorizers[0].webhook.failurePolicy: Unsupported value: "Maybe": supported values: "NoOpinion", "Deny"',
        'authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: "relative.kubeconfig": '
        "must be an absolute path",
        'authorizers[0].webhook.matchConditions[0].expression: Invalid value: "request.user ==": compilation failed',
    ):
        assert part in line


def test_an_in_cluster_connection_is_refused_at_start(tmp_path):
    webhook = _webhook("w", "/unused")
    webhook["webhook"]["connectionInfo"] = {"type": "InClusterConfig"}
    result = _parse(f"--authorization-config={_write(tmp_path / 'authz.yaml', webhook)}")
    assert result.returncode == 2
    assert result.stderr == (
        "Error: unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
        "must be defined\n"
    )
