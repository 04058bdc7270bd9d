"""The certificate flags of delegated authentication: upstream's defaults and refusals, and the
lookup of missing CAs in the `extension-apiserver-authentication` ConfigMap."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from svc.client.aio import ApiError
from svc.controllers.delegated_certs import CertificateOptions, LookupFailed, resolve
from svc.controllers.options import parse_options
from tests.apiserver.authn.peers import Authority


class ConfigMaps:
    """Answers the ConfigMap read with `answer` (a dict, or an ApiError to raise); records the path."""

    def __init__(self, answer: dict[str, Any] | Exception) -> None:
        self.answer = answer
        self.asked: list[str] = []

    async def get(self, path: str) -> dict[str, Any]:
        self.asked.append(path)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _resolve(options: CertificateOptions, client: ConfigMaps | None):
    return asyncio.run(resolve(options, client, "svc-system"))  # type: ignore[arg-type]


def test_the_request_header_flags_have_upstreams_defaults() -> None:
    certificates = parse_options([]).delegation.certificates
    header = certificates.request_header
    assert (header.username_headers, header.group_headers, header.extra_prefixes) == (
        ("x-remote-user",),
        ("x-remote-group",),
        ("x-remote-extra-",),
    )
    assert (header.uid_headers, header.allowed_names) == ((), ())
    assert (certificates.skip_lookup, certificates.tolerate_lookup_failure) == (False, False)


def test_an_empty_header_name_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_options(["--requestheader-username-headers=x-remote-user,"])
    assert exit_info.value.code == 1
    assert 'empty value in "requestheader-username-headers"' in capsys.readouterr().err


def test_uid_headers_need_their_feature_gate(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_options(
        ["--requestheader-uid-headers=x-remote-uid"]
    ).delegation.certificates.request_header.uid_headers
    with pytest.raises(SystemExit):
        parse_options(["--requestheader-uid-headers=x-remote-uid", "--feature-gates=RemoteRequestHeaderUID=false"])
    assert '--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled' in (
        capsys.readouterr().err
    )


def test_an_unreadable_client_ca_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_options([f"--client-ca-file={tmp_path / 'missing.crt'}"])
    assert "unable to load client CA file" in capsys.readouterr().err


def test_missing_cas_come_from_the_configmap_with_its_header_lists() -> None:
    client_ca, proxy_ca = Authority.create("client-ca"), Authority.create("proxy-ca")
    data = {
        "client-ca-file": client_ca.pem,
        "requestheader-client-ca-file": proxy_ca.pem,
        "requestheader-username-headers": json.dumps(["X-User"]),
        "requestheader-group-headers": json.dumps(["X-Group"]),
        "requestheader-extra-headers-prefix": json.dumps(["X-Extra-"]),
        "requestheader-allowed-names": json.dumps(["front-proxy"]),
    }
    client = ConfigMaps({"data": data})
    found = _resolve(CertificateOptions(), client)
    assert client.asked == ["/api/v1/namespaces/svc-system/configmaps/extension-apiserver-authentication"]
    assert found.client_cas == [client_ca.certificate]
    assert found.request_header_cas == [proxy_ca.certificate]
    assert found.request_header is not None
    assert (found.request_header.username_headers, found.request_header.allowed_names) == (
        ("X-User",),
        ("front-proxy",),
    )


def test_skip_lookup_reads_nothing() -> None:
    client = ConfigMaps({"data": {}})
    assert _resolve(CertificateOptions(skip_lookup=True), client).authenticators() == []
    assert client.asked == []


def test_a_missing_configmap_is_no_failure() -> None:
    assert _resolve(CertificateOptions(), ConfigMaps(ApiError(404, {"reason": "NotFound"}))).client_cas == []


def test_a_failed_lookup_stops_start_up_unless_tolerated() -> None:
    forbidden = ApiError(403, {"reason": "Forbidden", "message": "no"})
    with pytest.raises(LookupFailed, match="unable to load configmap based request-header-client-ca-file: 403"):
        _resolve(CertificateOptions(), ConfigMaps(forbidden))
    assert _resolve(CertificateOptions(tolerate_lookup_failure=True), ConfigMaps(forbidden)).client_cas == []
