"""Secure defaults: nothing answers a client without credentials, and the start-up line names the
address actually bound."""

from __future__ import annotations

import logging

import pytest

from svc.apiserver.main import serving_line
from svc.apiserver.options import ANONYMOUS_WITH_ALWAYS_ALLOW, parse_options

PATHS = (
    "/api/v1/namespaces/default/secrets",
    "/api/v1/namespaces",
    "/api",
    "/apis",
    "/apis/apps/v1",
    "/version",
    "/openapi/v2",
    "/healthz",
    "/livez",
    "/readyz",
    "/",
)


@pytest.mark.parametrize("path", PATHS)
def test_plain_server_rejects_every_request_without_credentials(svc_server, path) -> None:
    response = svc_server.anonymous_client().request("GET", path)
    assert response.status == 401
    body = response.json()
    assert (body["kind"], body["reason"], body["message"], body["code"]) == (
        "Status",
        "Unauthorized",
        "Unauthorized",
        401,
    )


def test_anonymous_auth_asked_for_explicitly_is_still_off_under_always_allow(svc_server_factory) -> None:
    server = svc_server_factory("--anonymous-auth=true")
    assert server.anonymous_client().request("GET", "/api/v1/namespaces").status == 401


def test_always_allow_resets_anonymous_auth_with_upstream_warning(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        options = parse_options([])
    assert options.anonymous_auth is False
    assert [record.getMessage() for record in caplog.records] == [ANONYMOUS_WITH_ALWAYS_ALLOW]
    assert ANONYMOUS_WITH_ALWAYS_ALLOW == (
        "AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. "
        "You should use a different authorizer"
    )


def test_anonymous_auth_stays_on_without_always_allow(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        options = parse_options(["--authorization-mode=AlwaysDeny"])
    assert options.anonymous_auth is True
    assert caplog.records == []


def test_start_up_line_says_a_wildcard_bind_serves_every_interface() -> None:
    line = serving_line("https://0.0.0.0:6443", "https://127.0.0.1:6443")
    assert line == (
        "svc-apiserver serving on https://0.0.0.0:6443 (all IPv4 interfaces; --bind-address=127.0.0.1 restricts it "
        "to this host), advertised as https://127.0.0.1:6443"
    )


def test_start_up_line_names_the_loopback_address_when_bound_there() -> None:
    assert serving_line("https://127.0.0.1:6443", "https://127.0.0.1:6443") == (
        "svc-apiserver serving on https://127.0.0.1:6443"
    )


def test_process_prints_the_bound_address_and_the_warning(svc_server_process, tmp_path) -> None:
    server = svc_server_process(data_dir=tmp_path / "data")
    log = (tmp_path / "data.log").read_text()
    assert f"svc-apiserver serving on {server.url}\n" in log
    assert f"W svc.apiserver.options: {ANONYMOUS_WITH_ALWAYS_ALLOW}\n" in log
