"""Bad authentication settings stop start-up with exit code 2 and upstream's text, before serving."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from svc.apiserver.authn import jwt_config
from svc.apiserver.authn.structured import StructuredJWT
from svc.apiserver.options import parse_options

ISSUER = "https://issuer.example.com"


def _file(tmp_path: Path, jwt: list[dict[str, Any]] | None = None, **extra: Any) -> str:
    config = {"apiVersion": "apiserver.config.k8s.io/v1beta1", "kind": "AuthenticationConfiguration", **extra}
    if jwt is not None:
        config["jwt"] = jwt
    path = tmp_path / "authn.json"
    path.write_text(json.dumps(config))
    return str(path)


def _jwt(**overrides: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "issuer": {"url": ISSUER, "audiences": ["svc"]},
        "claimMappings": {"username": {"claim": "sub", "prefix": ""}},
    }
    entry.update(overrides)
    return entry


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as caught:
        parse_options(argv)
    assert caught.value.code == 2
    return capsys.readouterr().err


def test_a_valid_file_is_accepted(tmp_path) -> None:
    options = parse_options([f"--authentication-config={_file(tmp_path, [_jwt()])}"])
    assert options.external_authn.jwt is not None
    assert options.external_authn.jwt.jwt[0].issuer.url == ISSUER


def test_file_and_oidc_flags_are_mutually_exclusive(tmp_path, capsys) -> None:
    argv = [f"--authentication-config={_file(tmp_path, [_jwt()])}", f"--oidc-issuer-url={ISSUER}"]
    assert _error(argv, capsys) == "Error: authentication-config file and oidc-* flags are mutually exclusive\n"


def test_oidc_issuer_needs_a_client_id(capsys) -> None:
    assert _error([f"--oidc-issuer-url={ISSUER}"], capsys) == (
        "Error: oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set\n"
    )


def test_oidc_issuer_must_be_https(capsys) -> None:
    assert _error(["--oidc-issuer-url=http://issuer", "--oidc-client-id=svc"], capsys) == (
        'Error: invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://issuer": '
        "URL scheme must be https\n"
    )


def test_claim_without_prefix(tmp_path, capsys) -> None:
    path = _file(tmp_path, [_jwt(claimMappings={"username": {"claim": "sub"}})])
    assert _error([f"--authentication-config={path}"], capsys) == (
        "Error: invalid authentication configuration: jwt[0].claimMappings.username.prefix: Required value: "
        "prefix is required when claim is set. It can be set to an empty string to disable prefixing\n"
    )


def test_several_errors_are_listed_on_one_line(tmp_path, capsys) -> None:
    issuer = {"url": ISSUER + "?q=1", "audiences": ["a", "b"]}
    path = _file(tmp_path, [_jwt(issuer=issuer), _jwt()])
    assert _error([f"--authentication-config={path}"], capsys) == (
        "Error: invalid authentication configuration: ["
        'jwt[0].issuer.url: Invalid value: "https://issuer.example.com?q=1": URL must not contain a query, '
        'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple '
        "audiences]\n"
    )


def test_duplicate_issuers(tmp_path, capsys) -> None:
    path = _file(tmp_path, [_jwt(), _jwt()])
    assert _error([f"--authentication-config={path}"], capsys) == (
        'Error: invalid authentication configuration: jwt[1].issuer.url: Duplicate value: "https://issuer.example.com"\n'
    )


def test_cel_that_does_not_compile_is_reported_on_one_line(tmp_path, capsys) -> None:
    path = _file(tmp_path, [_jwt(claimValidationRules=[{"expression": "foo.bar", "message": "x"}])])
    assert _error([f"--authentication-config={path}"], capsys) == (
        "Error: invalid authentication configuration: jwt[0].claimValidationRules[0].expression: "
        "Invalid value: \"foo.bar\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' "
        "(in container '') | foo.bar | ^\n"
    )


def test_email_in_a_username_expression_needs_email_verified(tmp_path, capsys) -> None:
    path = _file(tmp_path, [_jwt(claimMappings={"username": {"expression": "claims.email"}})])
    assert "claims.email_verified must be used in claimMappings.username.expression" in _error(
        [f"--authentication-config={path}"], capsys
    )
    fine = _file(
        tmp_path,
        [
            _jwt(
                claimMappings={"username": {"expression": "claims.email"}},
                claimValidationRules=[{"expression": "claims.email_verified == true", "message": "verify"}],
            )
        ],
    )
    parse_options([f"--authentication-config={fine}"])


def test_reserved_extra_key(tmp_path, capsys) -> None:
    mappings = {"username": {"claim": "sub", "prefix": ""}, "extra": [{"key": "k8s.io/x", "valueExpression": "'a'"}]}
    path = _file(tmp_path, [_jwt(claimMappings=mappings)])
    assert _error([f"--authentication-config={path}"], capsys) == (
        'Error: invalid authentication configuration: jwt[0].claimMappings.extra[0].key: Invalid value: "k8s.io/x": '
        "k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use\n"
    )


def test_unknown_field_is_a_strict_decoding_error(tmp_path, capsys) -> None:
    path = _file(tmp_path, [_jwt(issuer={"url": ISSUER, "audiences": ["svc"], "audience": "x"})])
    assert _error([f"--authentication-config={path}"], capsys) == (
        f'Error: failed to load authentication configuration from file "{path}": strict decoding error: '
        'unknown field "jwt[0].issuer.audience"\n'
    )


def test_missing_file(tmp_path, capsys) -> None:
    path = tmp_path / "absent.yaml"
    assert _error([f"--authentication-config={path}"], capsys) == (
        f'Error: failed to load authentication configuration from file "{path}": open {path}: '
        "No such file or directory\n"
    )


def test_anonymous_section_excludes_the_anonymous_auth_flag(tmp_path, capsys) -> None:
    path = _file(tmp_path, [], anonymous={"enabled": True, "conditions": [{"path": "/livez"}]})
    assert _error([f"--authentication-config={path}", "--anonymous-auth=false"], capsys) == (
        "Error: anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in "
        "authentication configuration file\n"
    )


def test_anonymous_conditions_need_enabled(tmp_path, capsys) -> None:
    path = _file(tmp_path, [], anonymous={"enabled": False, "conditions": [{"path": "/livez"}]})
    assert "enabled should be set to true when conditions are defined" in _error(
        [f"--authentication-config={path}"], capsys
    )


def test_unsupported_webhook_version(capsys) -> None:
    assert _error(["--authentication-token-webhook-version=v2"], capsys) == (
        'Error: unsupported webhook token authenticator version "v2", supported versions are v1, v1beta1\n'
    )


def test_unreadable_requestheader_ca(tmp_path, capsys) -> None:
    path = tmp_path / "proxy-ca.crt"
    path.write_text("not a certificate")
    assert "data does not contain any valid RSA or ECDSA certificates" in _error(
        [f"--requestheader-client-ca-file={path}"], capsys
    )


def test_service_account_issuers_may_not_be_claimed(tmp_path) -> None:
    config, _ = jwt_config.load(_file(tmp_path, [_jwt()]))
    (error,) = jwt_config.validate(config, ["https://sa.example.com", ISSUER])
    assert str(error) == (
        'jwt[0].issuer.url: Invalid value: "https://issuer.example.com": URL must not overlap with disallowed '
        "issuers: [https://issuer.example.com https://sa.example.com]"
    )


def test_unreadable_webhook_kubeconfig(tmp_path, capsys) -> None:
    path = tmp_path / "webhook.kubeconfig"
    path.write_text("apiVersion: v1\nkind: Config\nclusters: []\n")
    assert _error([f"--authentication-token-webhook-config-file={path}"], capsys) == (
        f"Error: invalid authentication token webhook config file {path}: "
        "no context chosen and no current-context set in the kubeconfig\n"
    )


def test_a_reload_may_not_change_the_anonymous_section(tmp_path) -> None:
    config, _ = jwt_config.load(_file(tmp_path, [_jwt()], anonymous={"enabled": True}))
    authenticator = StructuredJWT(config)
    changed = json.dumps(
        {"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AuthenticationConfiguration", "jwt": [_jwt()]}
    )
    with pytest.raises(ValueError, match="anonymous: Forbidden: changed from initial configuration file"):
        authenticator.reload(changed.encode())
    assert authenticator.config is config
