"""`kubectl auth whoami` with credentials the server trusts from outside: an OIDC token from a real
HTTPS provider (structured configuration) and a token reviewed by a webhook."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.apiserver.authn.peers import Authority, Provider, Webhook, serve_https
from tests.e2e.kubectl_runner import Kubectl


def _token_kubeconfig(server_kubeconfig: Path, token: str, path: Path) -> Path:
    config = yaml.safe_load(server_kubeconfig.read_text())
    config["users"] = [{"name": "token-user", "user": {"token": token}}]
    config["contexts"][0]["context"]["user"] = "token-user"
    path.write_text(yaml.safe_dump(config))
    return path


def test_whoami_with_an_oidc_token(svc_server_factory, kubectl_binary, tmp_path) -> None:
    authority = Authority.create("oidc-ca")
    provider = Provider()
    with serve_https(provider.app, authority, tmp_path) as url:
        provider.url = url
        config = {
            "apiVersion": "apiserver.config.k8s.io/v1",
            "kind": "AuthenticationConfiguration",
            "jwt": [
                {
                    "issuer": {"url": url, "audiences": ["svc"], "certificateAuthority": authority.pem},
                    "claimMappings": {
                        "username": {"claim": "email", "prefix": "oidc:"},
                        "groups": {"claim": "groups", "prefix": "oidc:"},
                        "extra": [{"key": "example.com/tenant", "valueExpression": "claims.tenant"}],
                    },
                }
            ],
        }
        path = tmp_path / "authn.yaml"
        path.write_text(yaml.safe_dump(config))
        server = svc_server_factory("--brand-profile=kubernetes", f"--authentication-config={path}")
        token = provider.token(email="dana@example.com", email_verified=True, groups=["eng"], tenant="acme")
        kubectl = Kubectl(kubectl_binary, _token_kubeconfig(server.kubeconfig, token, tmp_path / "oidc.kubeconfig"))
        review = json.loads(kubectl.run("auth", "whoami", "-o", "json").stdout)
    assert review["kind"] == "SelfSubjectReview"
    assert review["status"]["userInfo"] == {
        "username": "oidc:dana@example.com",
        "groups": ["oidc:eng", "system:authenticated"],
        "extra": {"example.com/tenant": ["acme"]},
    }


def test_whoami_with_a_webhook_token(svc_server_factory, kubectl_binary, tmp_path) -> None:
    authority = Authority.create("webhook-ca")
    hook = Webhook({"opaque": {"username": "erin", "uid": "42", "groups": ["ops"]}})
    with serve_https(hook.app, authority, tmp_path) as url:
        (tmp_path / "ca.crt").write_text(authority.pem)
        webhook_config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "hook", "cluster": {"server": f"{url}/review", "certificate-authority": "ca.crt"}}],
            "users": [{"name": "apiserver", "user": {}}],
            "contexts": [{"name": "hook", "context": {"cluster": "hook", "user": "apiserver"}}],
            "current-context": "hook",
        }
        path = tmp_path / "webhook.kubeconfig"
        path.write_text(yaml.safe_dump(webhook_config))
        server = svc_server_factory("--brand-profile=kubernetes", f"--authentication-token-webhook-config-file={path}")
        kubectl = Kubectl(kubectl_binary, _token_kubeconfig(server.kubeconfig, "opaque", tmp_path / "hook.kubeconfig"))
        review = json.loads(kubectl.run("auth", "whoami", "-o", "json").stdout)
    assert review["status"]["userInfo"] == {"username": "erin", "uid": "42", "groups": ["ops", "system:authenticated"]}
    assert hook.reviews[0]["apiVersion"] == "authentication.k8s.io/v1beta1"
