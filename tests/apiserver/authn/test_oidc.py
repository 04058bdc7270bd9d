"""OIDC and structured JWT authentication against a real HTTPS provider on loopback: discovery and
JWKS with the configured CA, key rotation, claim mappings (claims and CEL), validation rules, prefixes,
anonymous conditions and reloading of the configuration file."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from svc.apiserver.authn import jwks, structured
from tests.apiserver.authn.peers import Authority, Provider, serve_https, token_client, wait_for, whoami


@pytest.fixture
def authority() -> Authority:
    return Authority.create("oidc-ca")


@pytest.fixture
def provider(authority: Authority, tmp_path: Path) -> Iterator[Provider]:
    provider = Provider()
    with serve_https(provider.app, authority, tmp_path) as url:
        provider.url = url
        yield provider


def _config(provider: Provider, authority: Authority, **jwt: Any) -> dict[str, Any]:
    entry = {
        "issuer": {"url": provider.url, "audiences": ["svc"], "certificateAuthority": authority.pem},
        "claimMappings": {"username": {"claim": "sub", "prefix": "oidc:"}},
        **jwt,
    }
    return {"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AuthenticationConfiguration", "jwt": [entry]}


def _flags(provider: Provider, authority: Authority, tmp_path: Path) -> list[str]:
    ca = tmp_path / "oidc-ca.crt"
    ca.write_text(authority.pem)
    return [f"--oidc-issuer-url={provider.url}", "--oidc-client-id=svc", f"--oidc-ca-file={ca}"]


def _write(path: Path, config: dict[str, Any]) -> str:
    """Replaced in one rename, so a reload never reads a half-written file (a failed reload of its own)."""
    staged = path.with_suffix(".staged")
    staged.write_text(json.dumps(config))
    staged.replace(path)
    return str(path)


def test_flags_map_sub_with_the_issuer_url_prefix(svc_server_factory, provider, authority, tmp_path) -> None:
    server = svc_server_factory(*_flags(provider, authority, tmp_path), "--oidc-groups-claim=groups")
    status, user = whoami(token_client(server, provider.token(groups=["dev", "ops"])))
    assert status == 201
    assert user["username"] == f"{provider.url}#alice"
    assert user["groups"] == ["dev", "ops", "system:authenticated"]


def test_flags_email_claim_is_not_prefixed_and_dash_disables_prefixing(
    svc_server_factory, provider, authority, tmp_path
) -> None:
    email = svc_server_factory(*_flags(provider, authority, tmp_path), "--oidc-username-claim=email")
    assert whoami(token_client(email, provider.token(email="a@example.com")))[1]["username"] == "a@example.com"
    dash = svc_server_factory(*_flags(provider, authority, tmp_path), "--oidc-username-prefix=-")
    assert whoami(token_client(dash, provider.token()))[1]["username"] == "alice"


def test_unverified_email_is_rejected(svc_server_factory, provider, authority, tmp_path) -> None:
    server = svc_server_factory(*_flags(provider, authority, tmp_path), "--oidc-username-claim=email")
    token = provider.token(email="a@example.com", email_verified=False)
    assert whoami(token_client(server, token))[0] == 401


def test_required_claim_flag(svc_server_factory, provider, authority, tmp_path) -> None:
    server = svc_server_factory(*_flags(provider, authority, tmp_path), "--oidc-required-claim=hd=example.com")
    assert whoami(token_client(server, provider.token(hd="example.com")))[0] == 201
    assert whoami(token_client(server, provider.token(hd="other.com")))[0] == 401
    assert whoami(token_client(server, provider.token()))[0] == 401


def test_cel_claim_mappings_show_in_self_subject_review(svc_server_factory, provider, authority, tmp_path) -> None:
    config = _config(
        provider,
        authority,
        claimMappings={
            "username": {"expression": "'user:' + claims.sub"},
            "groups": {"expression": "claims.roles.map(r, 'role:' + r)"},
            "uid": {"expression": "claims.oid"},
            "extra": [{"key": "example.com/tenant", "valueExpression": "claims.tenant"}],
        },
    )
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    token = provider.token(roles=["admin", "dev"], oid="1234", tenant="acme")
    status, user = whoami(token_client(server, token))
    assert status == 201
    assert user == {
        "username": "user:alice",
        "uid": "1234",
        "groups": ["role:admin", "role:dev", "system:authenticated"],
        "extra": {"example.com/tenant": ["acme"]},
    }


def test_claim_validation_rule_in_cel(svc_server_factory, provider, authority, tmp_path) -> None:
    config = _config(
        provider,
        authority,
        claimValidationRules=[{"expression": "claims.tier == 'gold'", "message": "gold tier only"}],
    )
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    assert whoami(token_client(server, provider.token(tier="gold")))[0] == 201
    assert whoami(token_client(server, provider.token(tier="silver")))[0] == 401


def test_user_validation_rule_in_cel(svc_server_factory, provider, authority, tmp_path) -> None:
    config = _config(
        provider,
        authority,
        claimMappings={"username": {"claim": "sub", "prefix": ""}},
        userValidationRules=[{"expression": "!user.username.startsWith('system:')", "message": "no system users"}],
    )
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    assert whoami(token_client(server, provider.token()))[1]["username"] == "alice"
    assert whoami(token_client(server, provider.token(sub="system:admin")))[0] == 401


@pytest.mark.parametrize(
    "claims",
    [
        {"aud": "someone-else"},
        {"exp": int(time.time()) - 60},
        {"nbf": int(time.time()) + 3600},
        {"iss": "https://127.0.0.1:1/other"},
    ],
    ids=["audience", "expired", "not-yet-valid", "unknown-issuer"],
)
def test_tokens_failing_verification_are_401(svc_server_factory, provider, authority, tmp_path, claims) -> None:
    config = _config(provider, authority)
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    assert whoami(token_client(server, provider.token(**claims)))[0] == 401


@pytest.mark.parametrize("token", ["not-a-jwt", "a.b.c", "eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0."])
def test_malformed_tokens_are_401(svc_server_factory, provider, authority, tmp_path, token) -> None:
    config = _config(provider, authority)
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    assert whoami(token_client(server, token))[0] == 401


def _unsigned(header: dict[str, Any], claims: dict[str, Any]) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part(header)}.{part(claims)}.c2ln"


@pytest.mark.parametrize(
    ("header", "claims"),
    [
        ({"alg": ["RS256"], "kid": "key-1"}, {}),
        ({"alg": "none"}, {}),
        ({"alg": "HS256", "kid": "key-1"}, {}),
        ({"alg": "RS256", "kid": "key-1"}, {"exp": "tomorrow", "aud": {"x": 1}}),
    ],
    ids=["alg-list", "alg-none", "alg-hmac", "odd-claim-types"],
)
def test_crafted_tokens_naming_the_issuer_are_401(
    svc_server_factory, provider, authority, tmp_path, header, claims
) -> None:
    config = _config(provider, authority)
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    token = _unsigned(header, {"iss": provider.url, "aud": "svc", "sub": "x", "exp": int(time.time()) + 60, **claims})
    assert whoami(token_client(server, token))[0] == 401


def test_forged_signature_is_401(svc_server_factory, provider, authority, tmp_path) -> None:
    config = _config(provider, authority)
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    forged = provider.token(key=rsa.generate_private_key(public_exponent=65537, key_size=2048))
    assert whoami(token_client(server, forged))[0] == 401


def test_provider_without_the_configured_ca_is_not_trusted(svc_server_factory, provider, tmp_path) -> None:
    config = _config(provider, Authority.create("other-ca"))
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    assert whoami(token_client(server, provider.token()))[0] == 401
    assert provider.jwks_requests == 0


def test_rotated_key_is_fetched_on_unknown_kid_and_refetching_is_rate_limited(
    svc_server_factory, provider, authority, tmp_path, monkeypatch
) -> None:
    config = _config(provider, authority)
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    assert whoami(token_client(server, provider.token()))[0] == 201
    assert provider.jwks_requests == 1
    for _ in range(3):  # unknown key ids right after a fetch: no refetch within the interval
        assert whoami(token_client(server, provider.token(kid="made-up")))[0] == 401
    assert provider.jwks_requests == 1
    monkeypatch.setattr(jwks, "REFRESH_INTERVAL", 0.0)
    provider.rotate()
    status, user = whoami(token_client(server, provider.token()))
    assert (status, user["username"]) == (201, "oidc:alice")
    assert provider.jwks_requests == 2


def test_discovery_url_is_used_and_its_issuer_must_match(svc_server_factory, provider, authority, tmp_path) -> None:
    config = _config(provider, authority)
    config["jwt"][0]["issuer"]["discoveryURL"] = f"{provider.url}/.well-known/openid-configuration"
    config["jwt"][0]["issuer"]["url"] = f"{provider.url}/"  # differs from what discovery announces
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    assert whoami(token_client(server, provider.token(iss=f"{provider.url}/")))[0] == 401
    assert provider.jwks_requests == 0


def test_anonymous_conditions_allow_only_the_listed_paths(svc_server_factory, provider, authority, tmp_path) -> None:
    config = _config(provider, authority)
    config["anonymous"] = {"enabled": True, "conditions": [{"path": "/livez"}]}
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    anonymous = server.anonymous_client()
    assert anonymous.request("GET", "/livez").status == 200
    assert anonymous.request("GET", "/version").status == 401


def test_changed_file_is_reloaded_and_a_bad_one_keeps_the_old(
    svc_server_factory, provider, authority, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(structured, "RELOAD_INTERVAL", 0.05)
    path = tmp_path / "authn.json"
    server = svc_server_factory(f"--authentication-config={_write(path, _config(provider, authority))}")
    client = token_client(server, provider.token())
    assert whoami(client)[1]["username"] == "oidc:alice"
    changed = _config(provider, authority, claimMappings={"username": {"claim": "sub", "prefix": "new:"}})
    _write(path, changed)
    # A fresh token each time: an accepted one is remembered for 10 s, as upstream's token cache does.
    assert wait_for(lambda: whoami(token_client(server, provider.token()))[1].get("username") == "new:alice")
    broken = _config(provider, authority, claimMappings={"username": {"claim": "sub"}})  # prefix missing
    _write(path, broken)
    time.sleep(0.3)
    assert whoami(token_client(server, provider.token()))[1]["username"] == "new:alice"
    metrics = server.client().request("GET", "/metrics").body.decode()
    reloads = "apiserver_authentication_config_controller_automatic_reloads_total"
    assert _sample(metrics, reloads, status="success") == 1
    assert _sample(metrics, reloads, status="failure") == 1


def _sample(text: str, name: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    samples = [sample for family in text_string_to_metric_families(text) for sample in family.samples]
    return sum(s.value for s in samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


def test_verifications_are_timed_by_result_and_issuer_hash(svc_server_factory, provider, authority, tmp_path) -> None:
    import hashlib

    path = tmp_path / "authn.json"
    server = svc_server_factory(f"--authentication-config={_write(path, _config(provider, authority))}")
    assert whoami(token_client(server, provider.token()))[0] == 201
    assert whoami(token_client(server, provider.token(aud="other")))[0] == 401
    metrics = server.client().request("GET", "/metrics").body.decode()
    issuer = "sha256:" + hashlib.sha256(provider.url.encode()).hexdigest()
    latency = "apiserver_authentication_jwt_authenticator_latency_seconds_count"
    assert _sample(metrics, latency, result="success", jwt_issuer_hash=issuer) == 1
    assert _sample(metrics, latency, result="failure", jwt_issuer_hash=issuer) == 1


def test_signing_algs_flag_limits_the_accepted_algorithms(svc_server_factory, provider, authority, tmp_path) -> None:
    server = svc_server_factory(*_flags(provider, authority, tmp_path), "--oidc-signing-algs=ES256")
    assert whoami(token_client(server, provider.token()))[0] == 401  # signed RS256


def test_any_configured_audience_matches(svc_server_factory, provider, authority, tmp_path) -> None:
    config = _config(provider, authority)
    config["jwt"][0]["issuer"].update(audiences=["first", "second"], audienceMatchPolicy="MatchAny")
    server = svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    assert whoami(token_client(server, provider.token(aud=["other", "second"])))[0] == 201
    assert whoami(token_client(server, provider.token(aud="svc")))[0] == 401


def test_keys_are_fetched_at_start(svc_server_factory, provider, authority, tmp_path) -> None:
    config = _config(provider, authority)
    svc_server_factory(f"--authentication-config={_write(tmp_path / 'authn.json', config)}")
    assert wait_for(lambda: provider.jwks_requests == 1)
