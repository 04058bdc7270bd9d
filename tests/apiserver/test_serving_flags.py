"""Serving flags other than TLS and HTTP/2: CORS, HSTS, port sharing, the livez grace period, and
upstream's checks of the shutdown and header flags."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import pytest
from aiohttp.test_utils import make_mocked_request

from svc.apiserver.options import parse_options
from svc.apiserver.server import Server
from svc.testing.harness import RunningServer

ORIGIN_FLAG = r"--cors-allowed-origins=//allowed\.example(:|$)"


def test_cors_preflight_is_answered_before_authentication(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory(ORIGIN_FLAG)
    response = server.anonymous_client().request(
        "OPTIONS", "/api/v1/namespaces", headers={"Origin": "https://allowed.example"}
    )
    assert response.status == 204
    assert response.headers["Access-Control-Allow-Origin"] == "https://allowed.example"
    assert response.headers["Access-Control-Allow-Credentials"] == "true"
    assert "PATCH" in response.headers["Access-Control-Allow-Methods"]
    assert "Authorization" in response.headers["Access-Control-Allow-Headers"]


def test_cors_headers_on_answers_and_errors_for_allowed_origins_only(
    svc_server_factory: Callable[..., RunningServer],
) -> None:
    server = svc_server_factory(ORIGIN_FLAG)
    client = server.client()
    allowed = client.request("GET", "/api/v1/namespaces/default", headers={"Origin": "https://allowed.example:8443"})
    assert allowed.status == 200
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://allowed.example:8443"
    missing = client.request("GET", "/api/v1/namespaces/nope", headers={"Origin": "https://allowed.example"})
    assert missing.status == 404
    assert missing.headers["Access-Control-Expose-Headers"] == "Date"
    other = client.request("GET", "/api/v1/namespaces/default", headers={"Origin": "https://allowed.example.evil"})
    assert "Access-Control-Allow-Origin" not in other.headers


def test_hsts_header_on_every_response(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory("--strict-transport-security-directives=max-age=31536000,includeSubDomains,preload")
    client = server.client()
    for path in ("/api/v1/namespaces/default", "/api/v1/namespaces/nope", "/readyz"):
        header = client.request("GET", path).headers["Strict-Transport-Security"]
        assert header == "max-age=31536000; includeSubDomains; preload"


def test_no_cors_or_hsts_headers_by_default(svc_server: RunningServer) -> None:
    response = svc_server.client().request("GET", "/api/v1/namespaces/default", headers={"Origin": "https://a.b"})
    assert "Strict-Transport-Security" not in response.headers
    assert "Access-Control-Allow-Origin" not in response.headers


def test_permit_port_sharing_lets_two_servers_bind_one_port(
    svc_server_factory: Callable[..., RunningServer],
) -> None:
    server = svc_server_factory("--permit-port-sharing")
    port = int(server.url.rsplit(":", 1)[1])
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))  # refused (EADDRINUSE) unless the server's socket allows reuse too
    sock.close()


def _livez_status(grace: str) -> int:
    server = Server(parse_options([f"--livez-grace-period={grace}"]))  # not started: hooks unfinished
    request = make_mocked_request("GET", "/livez")
    response = asyncio.run(server.health("/livez", request))
    assert response is not None
    return response.status


def test_livez_passes_unfinished_hooks_during_the_grace_period() -> None:
    assert _livez_status("0s") == 500
    assert _livez_status("1h") == 200


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--goaway-chance=0.5", "--goaway-chance can not be less than 0 or greater than 0.02"),
        ("--shutdown-delay-duration=-1s", "--shutdown-delay-duration can not be negative value"),
        ("--livez-grace-period=-1s", "--livez-grace-period can not be a negative value"),
        (
            "--shutdown-watch-termination-grace-period=-1s",
            "shutdown-watch-termination-grace-period, if provided, can not be a negative value",
        ),
        ("--strict-transport-security-directives=max-age", "--strict-transport-security-directives invalid"),
        (
            "--strict-transport-security-directives=preload,,includeSubDomains",
            "empty value in strict-transport-security-directives",
        ),
        ("--cors-allowed-origins=example.com", "regular expression does not pin to start/end of host"),
        ("--cors-allowed-origins=^(x$", "--cors-allowed-origins has an invalid regular expression"),
    ],
)
def test_bad_serving_flags_stop_the_process(flag: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse_options([flag])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err
