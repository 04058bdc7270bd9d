"""`AllowParsingUserUIDFromCertAuth`: the uid of a client certificate's UID subject attribute."""

from __future__ import annotations

import dataclasses
import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from svc.client.rest import RestClient
from tests.apiserver.authn.conftest import AUTHN, REVIEW

UID = x509.ObjectIdentifier("1.3.6.1.4.1.57683.2")


def _client_with_uid(server, tmp_path, uids: list[str]) -> RestClient:
    pki = server.data_dir / "pki"
    ca_cert = x509.load_pem_x509_certificate((pki / "client-ca.crt").read_bytes())
    ca_key = serialization.load_pem_private_key((pki / "client-ca.key").read_bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.NameAttribute(NameOID.COMMON_NAME, "carol"), *(x509.NameAttribute(UID, uid) for uid in uids)]
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name(names))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .sign(ca_key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "carol.crt", tmp_path / "carol.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    config = dataclasses.replace(server.anonymous_client().config, cert_file=str(cert_file), key_file=str(key_file))
    client = RestClient(config)
    server._clients.append(client)
    return client


def _whoami(client: RestClient):
    return client.request("POST", f"/apis/{AUTHN}/v1/selfsubjectreviews", body=REVIEW)


def test_the_uid_attribute_of_a_client_certificate_is_the_users_uid(svc_server, tmp_path) -> None:
    response = _whoami(_client_with_uid(svc_server, tmp_path, ["carol-uid-1"]))
    assert response.status == 201
    assert response.json()["status"]["userInfo"]["uid"] == "carol-uid-1"


def test_two_uid_attributes_are_rejected(svc_server, tmp_path) -> None:
    assert _whoami(_client_with_uid(svc_server, tmp_path, ["a", "b"])).status == 401


def test_with_the_gate_off_the_uid_is_ignored(svc_server_factory, tmp_path) -> None:
    server = svc_server_factory("--feature-gates=AllowParsingUserUIDFromCertAuth=false")
    response = _whoami(_client_with_uid(server, tmp_path, ["carol-uid-1"]))
    assert response.status == 201
    assert "uid" not in response.json()["status"]["userInfo"]
