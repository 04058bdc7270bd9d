"""Keys: what we sign verifies against our published key set; what others sign with a key we are
given verifies here; bad key flags stop the start with one line. Issuer discovery documents."""

from __future__ import annotations

import time

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from svc.apiserver.options import parse_options
from tests.apiserver.authn.conftest import (
    ISSUER,
    claims_for,
    create,
    service_account,
    token_client,
    token_for,
    whoami,
    write_key,
    write_public_key,
)


def test_pyjwt_verifies_our_tokens_against_the_published_key_set(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    token = token_for(admin, audiences=["vault"])
    jwks = admin.request("GET", "/openid/v1/jwks")
    assert jwks.status == 200
    assert jwks.headers["Content-Type"] == "application/jwk-set+json"
    keys = jwt.PyJWKSet.from_dict(jwks.json())
    header = jwt.get_unverified_header(token)
    key = next(key for key in keys.keys if key.key_id == header["kid"])
    claims = jwt.decode(token, key.key, algorithms=[header["alg"]], audience="vault", issuer=ISSUER)
    assert claims["sub"] == "system:serviceaccount:default:robot"


def test_the_discovery_document_names_the_issuer_and_key_set(svc_server) -> None:
    response = svc_server.client().request("GET", "/.well-known/openid-configuration")
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["Cache-Control"] == "public, max-age=3600"
    document = response.json()
    assert document["issuer"] == ISSUER
    assert document["jwks_uri"] == f"{svc_server.url}/openid/v1/jwks"
    assert document["id_token_signing_alg_values_supported"] == ["ES256"]
    assert document["response_types_supported"] == ["id_token"]
    assert document["subject_types_supported"] == ["public"]


def test_the_jwks_uri_flag_overrides_the_key_set_address(svc_server_factory) -> None:
    server = svc_server_factory("--service-account-jwks-uri=https://keys.example/jwks")
    document = server.client().request("GET", "/.well-known/openid-configuration").json()
    assert document["jwks_uri"] == "https://keys.example/jwks"


def test_discovery_is_not_served_for_an_issuer_that_is_not_an_https_url(svc_server_factory) -> None:
    server = svc_server_factory("--service-account-issuer=svc-issuer")
    assert server.client().request("GET", "/.well-known/openid-configuration").status == 404
    assert server.client().request("GET", "/openid/v1/jwks").status == 404


def test_under_rbac_service_accounts_read_discovery_and_anonymous_users_do_not(svc_server_factory) -> None:
    server = svc_server_factory("--authorization-mode=RBAC")
    admin = server.client()
    service_account(admin)
    as_robot = token_client(server, token_for(admin))
    assert as_robot.request("GET", "/openid/v1/jwks").status == 200
    assert as_robot.request("GET", "/.well-known/openid-configuration").status == 200
    assert server.anonymous_client().request("GET", "/openid/v1/jwks").status == 403
    binding = {
        "apiVersion": "rbac.authorization.svc/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "public-discovery"},
        "roleRef": {
            "apiGroup": "rbac.authorization.svc",
            "kind": "ClusterRole",
            "name": "system:service-account-issuer-discovery",
        },
        "subjects": [{"kind": "Group", "name": "system:unauthenticated", "apiGroup": "rbac.authorization.svc"}],
    }
    create(admin, "/apis/rbac.authorization.svc/v1/clusterrolebindings", binding)
    anonymous = server.anonymous_client()
    for _ in range(200):  # the binding reaches the RBAC index a cache flush after it is stored
        if anonymous.request("GET", "/openid/v1/jwks").status == 200:
            break
        time.sleep(0.01)
    assert anonymous.request("GET", "/openid/v1/jwks").status == 200


@pytest.mark.parametrize(
    "make_key", [lambda: rsa.generate_private_key(65537, 2048), lambda: ec.generate_private_key(ec.SECP384R1())]
)
def test_we_verify_tokens_signed_with_a_key_given_by_flag(svc_server_factory, tmp_path, make_key) -> None:
    key = make_key()
    public = write_public_key(tmp_path / "verify.pub", key)
    issuer = "https://issuer.example"
    server = svc_server_factory(f"--service-account-key-file={public}", f"--service-account-issuer={issuer}")
    account = service_account(server.client())
    algorithm = "RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES384"
    token = jwt.encode({**claims_for(account, audience=issuer), "iss": issuer}, key, algorithm=algorithm)
    response = whoami(server, token)
    assert response.status == 201, response.json()
    assert response.json()["status"]["userInfo"]["username"] == "system:serviceaccount:default:robot"


def test_with_verification_keys_only_no_token_request_is_served(svc_server_factory, tmp_path) -> None:
    public = write_public_key(tmp_path / "verify.pub", ec.generate_private_key(ec.SECP256R1()))
    server = svc_server_factory(f"--service-account-key-file={public}")
    admin = server.client()
    service_account(admin)
    body = {"apiVersion": "authentication.svc/v1", "kind": "TokenRequest", "spec": {}}
    assert admin.request("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", body=body).status == 404


def test_the_quick_start_key_is_a_private_file(svc_server_factory) -> None:
    server = svc_server_factory()
    key_file = server.data_dir / "pki" / "service-account.key"
    assert key_file.stat().st_mode & 0o777 == 0o600


def _start_error(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        parse_options(list(argv))
    assert stopped.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    return lines[0]


def test_a_missing_key_file_stops_the_start_with_one_line(capsys, tmp_path) -> None:
    line = _start_error(capsys, f"--service-account-key-file={tmp_path / 'none.pem'}")
    assert "failed to read key file" in line and "none.pem" in line


def test_a_file_without_keys_stops_the_start_with_one_line(capsys, tmp_path) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n")
    line = _start_error(capsys, f"--service-account-key-file={junk}")
    assert "data does not contain any valid RSA or ECDSA public keys" in line


def test_a_signing_key_file_that_is_public_stops_the_start(capsys, tmp_path) -> None:
    public = write_public_key(tmp_path / "pub.pem", ec.generate_private_key(ec.SECP256R1()))
    line = _start_error(capsys, f"--service-account-signing-key-file={public}", f"--service-account-key-file={public}")
    assert "service-account-signing-key-file" in line


def test_a_signing_key_needs_verification_keys(capsys, tmp_path) -> None:
    key = write_key(tmp_path / "sa.key", ec.generate_private_key(ec.SECP256R1()))
    line = _start_error(capsys, f"--service-account-signing-key-file={key}")
    assert "service-account-key-file" in line


def test_an_unsupported_curve_stops_the_start(capsys, tmp_path) -> None:
    key = write_key(tmp_path / "k1.key", ec.generate_private_key(ec.SECP256K1()))
    line = _start_error(capsys, f"--service-account-key-file={key}")
    assert "unsupported key type" in line


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("--service-account-max-token-expiration=10m", "between 1 hour and 2^32 seconds"),
        ("--service-account-issuer=https://a.example", "already specified"),
        ("--service-account-jwks-uri=http://keys.example/jwks", "https"),
    ],
)
def test_bad_service_account_flags_stop_the_start(capsys, flag: str, expected: str) -> None:
    extra = ["--service-account-issuer=https://a.example"] if "issuer" in flag else []
    assert expected in _start_error(capsys, *extra, flag)
