"""Client certificates that fail verification get a 401 Status over a completed TLS handshake, as
upstream (Go requests the certificate without verifying it; the x509 authenticator verifies it)."""

from __future__ import annotations

import dataclasses
import datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from svc.client.rest import RestClient

CLIENT_AUTH = [ExtendedKeyUsageOID.CLIENT_AUTH]
SERVER_AUTH = [ExtendedKeyUsageOID.SERVER_AUTH]
REVIEW = {"apiVersion": "authentication.svc/v1", "kind": "SelfSubjectReview", "metadata": {}}
NOW = datetime.datetime.now(datetime.UTC)
DAY = datetime.timedelta(days=1)

Issuer = tuple[x509.Certificate, ec.EllipticCurvePrivateKey]


def _issue(
    common_name: str,
    issuer: Issuer | None,
    *,
    ca: bool = False,
    usage: list[x509.ObjectIdentifier] | None = None,
    not_before: datetime.datetime = NOW - DAY,
    not_after: datetime.datetime = NOW + DAY,
    organizations: tuple[str, ...] = (),
) -> Issuer:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [
            *(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org) for org in organizations),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )
    issuer_name, signing_key = (issuer[0].subject, issuer[1]) if issuer else (subject, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if usage:
        builder = builder.add_extension(x509.ExtendedKeyUsage(usage), critical=False)
    return builder.sign(signing_key, hashes.SHA256()), key


def _client_ca(server) -> Issuer:
    pki = Path(server.data_dir) / "pki"
    certificate = x509.load_pem_x509_certificate((pki / "client-ca.crt").read_bytes())
    key = serialization.load_pem_private_key((pki / "client-ca.key").read_bytes(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return certificate, key


def _client(server, tmp_path: Path, pair: Issuer, *chain: x509.Certificate, token: str = "") -> RestClient:
    certificate, key = pair
    cert_file = tmp_path / f"{certificate.serial_number}.crt"
    key_file = tmp_path / f"{certificate.serial_number}.key"
    pem = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in (certificate, *chain))
    cert_file.write_bytes(pem)
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    base = server.anonymous_client().config
    return RestClient(dataclasses.replace(base, cert_file=str(cert_file), key_file=str(key_file), token=token))


def _user_info(client: RestClient) -> dict:
    response = client.request("POST", "/apis/authentication.svc/v1/selfsubjectreviews", body=REVIEW)
    assert response.status == 201, response.json()
    return response.json()["status"]["userInfo"]


def _assert_unauthorized(client: RestClient) -> None:
    response = client.request("GET", "/api/v1/namespaces")
    assert response.status == 401
    body = response.json()
    assert (body["kind"], body["status"], body["reason"], body["message"]) == (
        "Status",
        "Failure",
        "Unauthorized",
        "Unauthorized",
    )


def test_certificate_from_the_client_ca_names_user_and_groups(svc_server, tmp_path) -> None:
    pair = _issue("alice", _client_ca(svc_server), usage=CLIENT_AUTH, organizations=("devs", "ops"))
    assert _user_info(_client(svc_server, tmp_path, pair)) == {
        "username": "alice",
        "groups": ["devs", "ops", "system:authenticated"],
    }


def test_certificate_without_extended_key_usage_is_valid_for_client_auth(svc_server, tmp_path) -> None:
    pair = _issue("alice", _client_ca(svc_server))
    assert _user_info(_client(svc_server, tmp_path, pair))["username"] == "alice"


def _other_ca(server) -> Issuer:
    return _issue("other-ca", None, ca=True)


def _expired(server) -> Issuer:
    return _issue("alice", _client_ca(server), usage=CLIENT_AUTH, not_before=NOW - 3 * DAY, not_after=NOW - DAY)


def _not_yet_valid(server) -> Issuer:
    return _issue("alice", _client_ca(server), usage=CLIENT_AUTH, not_before=NOW + DAY, not_after=NOW + 3 * DAY)


def _server_auth_only(server) -> Issuer:
    return _issue("alice", _client_ca(server), usage=SERVER_AUTH)


def _self_signed(server) -> Issuer:
    return _issue("alice", None, usage=CLIENT_AUTH)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda s: _issue("alice", _other_ca(s), usage=CLIENT_AUTH), id="signed-by-another-ca"),
        pytest.param(_expired, id="expired"),
        pytest.param(_not_yet_valid, id="not-yet-valid"),
        pytest.param(_server_auth_only, id="server-auth-only"),
        pytest.param(_self_signed, id="self-signed"),
    ],
)
def test_certificate_failing_verification_is_401_after_a_completed_handshake(svc_server, tmp_path, make) -> None:
    _assert_unauthorized(_client(svc_server, tmp_path, make(svc_server)))


def test_certificate_issued_by_a_non_ca_certificate_is_401(svc_server, tmp_path) -> None:
    not_a_ca = _issue("bob", _client_ca(svc_server), usage=CLIENT_AUTH)
    pair = _issue("alice", not_a_ca, usage=CLIENT_AUTH)
    _assert_unauthorized(_client(svc_server, tmp_path, pair, not_a_ca[0]))


def test_intermediate_that_forbids_client_auth_is_401(svc_server_factory, tmp_path) -> None:
    root = _issue("root", None, ca=True)
    intermediate = _issue("intermediate", root, ca=True, usage=SERVER_AUTH)
    bundle = tmp_path / "bundle.crt"
    bundle.write_bytes(b"".join(c.public_bytes(serialization.Encoding.PEM) for c in (root[0], intermediate[0])))
    server = svc_server_factory(f"--client-ca-file={bundle}")
    _assert_unauthorized(_client(server, tmp_path, _issue("alice", intermediate, usage=CLIENT_AUTH)))


def test_intermediate_sent_by_the_client_completes_the_chain(svc_server_factory, tmp_path) -> None:
    root = _issue("root", None, ca=True)
    intermediate = _issue("intermediate", root, ca=True)
    bundle = tmp_path / "root.crt"
    bundle.write_bytes(root[0].public_bytes(serialization.Encoding.PEM))
    server = svc_server_factory(f"--client-ca-file={bundle}")
    pair = _issue("erin", intermediate, usage=CLIENT_AUTH)
    assert _user_info(_client(server, tmp_path, pair, intermediate[0]))["username"] == "erin"
    _assert_unauthorized(_client(server, tmp_path, pair))


def test_client_ca_file_authorities_are_trusted(svc_server_factory, tmp_path) -> None:
    authority = _issue("corporate-ca", None, ca=True)
    bundle = tmp_path / "corporate.crt"
    bundle.write_bytes(authority[0].public_bytes(serialization.Encoding.PEM))
    server = svc_server_factory(f"--client-ca-file={bundle}")
    pair = _issue("carol", authority, usage=CLIENT_AUTH, organizations=("corp",))
    assert _user_info(_client(server, tmp_path, pair))["username"] == "carol"


def test_valid_token_beside_a_failing_certificate_authenticates(svc_server_factory, tmp_path) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("s3cret,dave,uid-2\n")
    server = svc_server_factory(f"--token-auth-file={tokens}")
    client = _client(server, tmp_path, _self_signed(server), token="s3cret")
    assert _user_info(client)["username"] == "dave"


def test_unreadable_client_ca_file_stops_the_server(tmp_path, capsys) -> None:
    from svc.apiserver.options import parse_options

    bundle = tmp_path / "empty.crt"
    bundle.write_text("not a certificate\n")
    with pytest.raises(SystemExit) as stopped:
        parse_options([f"--client-ca-file={bundle}"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        f'Error: unable to load client CA file "{bundle}": data does not contain any valid RSA or ECDSA certificates\n'
    )


def test_certificate_that_expires_while_its_connection_is_open_is_401(svc_server, tmp_path, monkeypatch) -> None:
    from svc.apiserver.authn import x509 as x509_authenticator

    pair = _issue("alice", _client_ca(svc_server), usage=CLIENT_AUTH, not_after=NOW + DAY)
    client = _client(svc_server, tmp_path, pair)
    assert client.request("GET", "/api/v1/namespaces").status == 200
    monkeypatch.setattr(x509_authenticator, "_clock", lambda: (NOW + 2 * DAY).timestamp())
    _assert_unauthorized(client)


def test_the_program_answers_401_over_its_own_event_loop(svc_server_process, tmp_path) -> None:
    server = svc_server_process(data_dir=tmp_path / "data")
    _assert_unauthorized(_client(server, tmp_path, _self_signed(server)))
    pair = _issue("alice", _client_ca(server), usage=CLIENT_AUTH)
    assert _user_info(_client(server, tmp_path, pair))["username"] == "alice"


def test_client_ca_file_replaces_the_generated_client_ca(svc_server_factory, tmp_path) -> None:
    authority = _issue("corporate-ca", None, ca=True)
    bundle = tmp_path / "corporate.crt"
    bundle.write_bytes(authority[0].public_bytes(serialization.Encoding.PEM))
    server = svc_server_factory(f"--client-ca-file={bundle}")
    pki = Path(server.data_dir) / "pki"
    base = server.anonymous_client().config
    generated_admin = dataclasses.replace(base, cert_file=str(pki / "admin.crt"), key_file=str(pki / "admin.key"))
    _assert_unauthorized(RestClient(generated_admin))
    assert _user_info(server.client())["groups"] == ["system:masters", "system:authenticated"]
