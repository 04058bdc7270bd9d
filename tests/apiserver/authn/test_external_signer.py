"""`--service-account-signing-endpoint`: tokens signed by an ExternalJWTSigner plugin on a unix socket
(a real gRPC server in the test), its keys verifying and published, its limits honoured."""

from __future__ import annotations

import subprocess
import sys

import jwt
import pytest

from svc.apiserver.options import parse_options
from svc.testing.harness import free_port
from tests.apiserver.authn.conftest import ISSUER, request_token, service_account, token_for, whoami
from tests.apiserver.authn.external_signer_peer import Plugin, SignerKey, serve_plugin


@pytest.fixture
def plugin() -> Plugin:
    return Plugin(keys=[SignerKey("first")], signing="first")


@pytest.fixture
def signed(svc_server_factory, plugin, tmp_path):
    with serve_plugin(plugin, tmp_path) as socket:
        yield svc_server_factory(f"--service-account-signing-endpoint={socket}")


def test_a_requested_token_is_signed_by_the_plugin_and_authenticates(signed, plugin) -> None:
    admin = signed.client()
    service_account(admin)
    token = token_for(admin, audiences=["vault"])
    assert jwt.get_unverified_header(token) == {"alg": "ES256", "kid": "first", "typ": "JWT"}
    claims = jwt.decode(
        token, plugin.key("first").key.public_key(), algorithms=["ES256"], audience="vault", issuer=ISSUER
    )
    assert claims["sub"] == "system:serviceaccount:default:robot"
    assert plugin.calls["Sign"] == 1
    response = whoami(signed, token_for(admin))
    assert response.status == 201
    assert response.json()["status"]["userInfo"]["username"] == "system:serviceaccount:default:robot"


def test_the_published_key_set_is_the_plugins_without_excluded_keys(svc_server_factory, tmp_path) -> None:
    plugin = Plugin(keys=[SignerKey("current"), SignerKey("legacy", excluded=True)], signing="current")
    with serve_plugin(plugin, tmp_path) as socket:
        server = svc_server_factory(f"--service-account-signing-endpoint={socket}")
        jwks = server.client().request("GET", "/openid/v1/jwks").json()
    assert [key["kid"] for key in jwks["keys"]] == ["current"]
    assert jwt.PyJWK(jwks["keys"][0]).key.public_numbers() == plugin.key("current").key.public_key().public_numbers()


def test_a_token_under_a_rotated_key_is_verified_after_a_refresh(signed, plugin) -> None:
    admin = signed.client()
    service_account(admin)
    fetched = plugin.calls["FetchKeys"]
    with plugin.lock:
        plugin.keys.append(SignerKey("second"))
        plugin.signing = "second"
    token = token_for(admin)
    assert jwt.get_unverified_header(token)["kid"] == "second"
    assert whoami(signed, token).status == 201
    assert plugin.calls["FetchKeys"] == fetched + 1


def test_an_excluded_key_still_verifies_but_may_not_sign(svc_server_factory, plugin, tmp_path) -> None:
    with serve_plugin(plugin, tmp_path) as socket:
        server = svc_server_factory(f"--service-account-signing-endpoint={socket}")
        admin = server.client()
        service_account(admin)
        old = token_for(admin)
        with plugin.lock:
            plugin.key("first").excluded = True
            plugin.keys.append(SignerKey("second"))
        assert (
            whoami(server, token_for(admin)).status == 201
        )  # still "first": the keys are refreshed by the plugin's hint
        with plugin.lock:
            plugin.keys.append(SignerKey("third"))
            plugin.signing = "third"
        assert whoami(server, token_for(admin)).status == 201  # unknown kid: the key set is fetched again
        assert whoami(server, old).status == 201
        with plugin.lock:
            plugin.signing = "first"
        refused = request_token(admin)
    assert refused.status == 500
    assert refused.json()["message"] == (
        "Internal error occurred: failed to generate token: while validating header: "
        "key used for signing JWT (kid: first) is excluded from OIDC discovery docs"
    )


def test_a_header_with_other_members_is_refused(svc_server_factory, plugin, tmp_path) -> None:
    plugin.header_extra = {"x5t": "abc"}
    with serve_plugin(plugin, tmp_path) as socket:
        server = svc_server_factory(f"--service-account-signing-endpoint={socket}")
        admin = server.client()
        service_account(admin)
        response = request_token(admin)
    assert response.status == 500
    assert "while validating header" in response.json()["message"]


def test_the_maximum_lifetime_defaults_to_the_plugins(svc_server_factory, plugin, tmp_path) -> None:
    plugin.max_token_expiration = 1800
    with serve_plugin(plugin, tmp_path) as socket:
        server = svc_server_factory(f"--service-account-signing-endpoint={socket}")
        admin = server.client()
        service_account(admin)
        response = request_token(admin, expirationSeconds=7200)
    assert response.status == 201
    token = response.json()["status"]["token"]
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == 1800
    assert response.warnings == ['299 - "requested expiration of 7200 seconds shortened to 1800 seconds"']


def _start_failure(tmp_path, *flags: str) -> str:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "svc.apiserver",
            f"--data-dir={tmp_path / 'data'}",
            f"--secure-port={free_port()}",
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr
    return lines[-1]


def test_a_plugin_with_too_short_a_lifetime_stops_the_start(plugin, tmp_path) -> None:
    plugin.max_token_expiration = 300
    with serve_plugin(plugin, tmp_path) as socket:
        line = _start_failure(tmp_path, f"--service-account-signing-endpoint={socket}")
    assert line == (
        "svc-apiserver: max token life supported by external-jwt-signer (300s) is less than acceptable (min 600s)"
    )


def test_a_maximum_beyond_the_plugins_stops_the_start(plugin, tmp_path) -> None:
    plugin.max_token_expiration = 3600
    with serve_plugin(plugin, tmp_path) as socket:
        line = _start_failure(
            tmp_path, f"--service-account-signing-endpoint={socket}", "--service-account-max-token-expiration=2h"
        )
    assert line == (
        "svc-apiserver: service-account-max-token-expiration cannot be set longer than the token expiration "
        "supported by service-account-signing-endpoint: 2h0m0s > 1h0m0s"
    )


def test_a_plugin_without_keys_stops_the_start(plugin, tmp_path) -> None:
    plugin.refresh_hint = 0
    with serve_plugin(plugin, tmp_path) as socket:
        line = _start_failure(tmp_path, f"--service-account-signing-endpoint={socket}")
    assert line == (
        "svc-apiserver: while setting up external-jwt-signer: while initially filling key cache: while performing "
        "initial cache fill: while fetching token verification keys: found invalid refresh hint (0s)"
    )


def test_the_endpoint_excludes_the_key_file_flags(tmp_path) -> None:
    with pytest.raises(SystemExit):
        parse_options(["--service-account-signing-endpoint=/x.sock", "--service-account-signing-key-file=/k"])
