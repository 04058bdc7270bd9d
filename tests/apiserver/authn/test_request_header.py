"""Front-proxy (request-header) authentication: headers count only on a connection with the proxy's
certificate and an allowed name; forged headers are ignored; the extension ConfigMap publishes it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from aiohttp.test_utils import make_mocked_request

from svc.apiserver.authn.request_header import RequestHeaderConfig
from svc.client.rest import RestClient
from tests.apiserver.authn.peers import Authority, whoami

HEADERS = {
    "X-Remote-User": "alice",
    "X-Remote-Uid": "uid-1",
    "X-Remote-Group": "dev",
    "X-Remote-Extra-Scopes": "read",
    "X-Remote-Extra-Acme.com%2FProject": "apollo",
}


@pytest.fixture
def proxy_ca() -> Authority:
    return Authority.create("front-proxy-ca")


def _start(factory, proxy_ca: Authority, tmp_path: Path, *extra: str):
    ca_file = tmp_path / "front-proxy-ca.crt"
    ca_file.write_text(proxy_ca.pem)
    return factory(
        f"--requestheader-client-ca-file={ca_file}",
        "--requestheader-username-headers=X-Remote-User",
        "--requestheader-uid-headers=X-Remote-Uid",
        "--requestheader-group-headers=X-Remote-Group",
        "--requestheader-extra-headers-prefix=X-Remote-Extra-",
        *extra,
    )


def _proxy_client(server, authority: Authority, tmp_path: Path, name: str) -> RestClient:
    cert_file, key_file = authority.write_pair(tmp_path, name)
    base = server.anonymous_client().config
    return RestClient(dataclasses.replace(base, cert_file=str(cert_file), key_file=str(key_file)), headers=HEADERS)


def test_proxy_certificate_makes_the_headers_the_user(svc_server_factory, proxy_ca, tmp_path) -> None:
    server = _start(svc_server_factory, proxy_ca, tmp_path, "--requestheader-allowed-names=front-proxy")
    status, user = whoami(_proxy_client(server, proxy_ca, tmp_path, "front-proxy"))
    assert status == 201
    assert user == {
        "username": "alice",
        "uid": "uid-1",
        "groups": ["dev", "system:authenticated"],
        "extra": {"scopes": ["read"], "acme.com/project": ["apollo"]},
    }


def test_proxy_name_not_allowed_is_401(svc_server_factory, proxy_ca, tmp_path) -> None:
    server = _start(svc_server_factory, proxy_ca, tmp_path, "--requestheader-allowed-names=front-proxy")
    assert whoami(_proxy_client(server, proxy_ca, tmp_path, "intruder"))[0] == 401


def test_empty_allowed_names_accept_any_proxy_name(svc_server_factory, proxy_ca, tmp_path) -> None:
    server = _start(svc_server_factory, proxy_ca, tmp_path)
    assert whoami(_proxy_client(server, proxy_ca, tmp_path, "any-name"))[1]["username"] == "alice"


def test_forged_headers_with_another_certificate_are_ignored(svc_server_factory, proxy_ca, tmp_path) -> None:
    server = _start(svc_server_factory, proxy_ca, tmp_path)
    admin = server.client(headers=HEADERS)  # a client certificate, but from the client CA
    status, user = whoami(admin)
    assert status == 201
    assert user["username"] == "svc-admin"
    assert "extra" not in user


def test_forged_headers_without_a_certificate_are_anonymous(svc_server_factory, proxy_ca, tmp_path) -> None:
    server = _start(svc_server_factory, proxy_ca, tmp_path, "--authorization-mode=RBAC", "--anonymous-auth=true")
    anonymous = server.anonymous_client(headers=HEADERS)
    response = anonymous.request("GET", "/api/v1/namespaces/default/pods")
    assert response.status == 403
    assert 'User "system:anonymous" cannot list' in response.json()["message"]


def test_forged_certificate_from_another_ca_is_not_the_proxy(svc_server_factory, proxy_ca, tmp_path) -> None:
    server = _start(svc_server_factory, proxy_ca, tmp_path)
    assert whoami(_proxy_client(server, Authority.create("forged-ca"), tmp_path, "front-proxy"))[0] == 401


def test_headers_are_stripped_before_handlers() -> None:
    config = RequestHeaderConfig(("X-Remote-User",), ("X-Remote-Uid",), ("X-Remote-Group",), ("X-Remote-Extra-",))
    request = make_mocked_request("GET", "/api", headers={**HEADERS, "Accept": "application/json"})
    stripped = config.strip(request)
    assert dict(stripped.headers) == {"Accept": "application/json"}


def test_extension_configmap_publishes_the_trust(svc_server_factory, proxy_ca, tmp_path) -> None:
    server = _start(svc_server_factory, proxy_ca, tmp_path, "--requestheader-allowed-names=front-proxy")
    response = server.client().request(
        "GET", "/api/v1/namespaces/svc-system/configmaps/extension-apiserver-authentication"
    )
    assert response.status == 200
    data = response.json()["data"]
    client_ca = (server.data_dir / "pki" / "client-ca.crt").read_text()
    assert data["client-ca-file"].strip() == client_ca.strip()
    assert data["requestheader-client-ca-file"] == proxy_ca.pem
    assert json.loads(data["requestheader-username-headers"]) == ["X-Remote-User"]
    assert json.loads(data["requestheader-uid-headers"]) == ["X-Remote-Uid"]
    assert json.loads(data["requestheader-group-headers"]) == ["X-Remote-Group"]
    assert json.loads(data["requestheader-extra-headers-prefix"]) == ["X-Remote-Extra-"]
    assert json.loads(data["requestheader-allowed-names"]) == ["front-proxy"]
