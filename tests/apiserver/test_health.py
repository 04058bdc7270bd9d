"""Health endpoints exactly as spec 1 §3.2/§4.10 and upstream print them."""

from __future__ import annotations

import pytest


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def test_plain_ok(api) -> None:
    for path in ("/healthz", "/livez", "/readyz"):
        response = api.request("GET", path)
        assert response.status == 200
        assert response.body == b"ok"
        assert response.headers["Content-Type"] == "text/plain; charset=utf-8"


def test_verbose_lists_checks_and_ends_with_passed(api) -> None:
    body = api.request("GET", "/readyz", params={"verbose": ""}).body.decode()
    lines = body.splitlines()
    assert lines[:4] == ["[+]ping ok", "[+]log ok", "[+]store ok", "[+]store-readiness ok"]
    assert "[+]shutdown ok" in lines
    assert lines[-1] == "readyz check passed"
    assert api.request("GET", "/livez", params={"verbose": "1"}).body.decode().endswith("livez check passed\n")


def test_exclude_marks_check_excluded(api) -> None:
    body = api.request("GET", "/healthz", params={"verbose": "", "exclude": "log"}).body.decode()
    assert "[+]log excluded: ok" in body.splitlines()


def test_exclude_of_unknown_check_warns(api) -> None:
    body = api.request("GET", "/healthz", params={"verbose": "", "exclude": ["nope", "log"]}).body.decode()
    assert 'warn: some health checks cannot be excluded: no matches for "nope"' in body.splitlines()


def test_individual_check(api) -> None:
    response = api.request("GET", "/livez/ping")
    assert (response.status, response.body) == (200, b"ok")
    assert api.request("GET", "/readyz/store").body == b"ok"
    assert api.request("GET", "/readyz/nope").status == 404


def test_storage_failure_fails_readyz_with_reason_withheld(svc_server) -> None:
    server = svc_server.server
    original = server.backend.get

    async def broken(key):
        raise OSError("disk on fire")

    server.backend.get = broken
    try:
        response = svc_server.client().request("GET", "/readyz", params={"verbose": ""})
        assert response.status == 500
        lines = response.body.decode().splitlines()
        assert "[-]store failed: reason withheld" in lines
        assert lines[-1] == "readyz check failed"
        single = svc_server.client().request("GET", "/readyz/store")
        assert single.body == b"internal server error: disk on fire\n"
    finally:
        server.backend.get = original
