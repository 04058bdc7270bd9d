"""Process flags: unknown or malformed flags exit 2 with one line; --version and -h work."""

from __future__ import annotations

import subprocess
import sys

import pytest

from svc.apiserver.options import parse_options


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "svc.apiserver", *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_unknown_flag_exits_2_with_one_line() -> None:
    result = _run("--no-such-flag")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["Error: unrecognized arguments: --no-such-flag"]


def test_malformed_value_exits_2_with_one_line() -> None:
    result = _run("--secure-port", "seventy")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "--secure-port" in result.stderr


def test_bad_duration_names_go_error() -> None:
    result = _run("--store-compaction-interval=5 minutes")
    assert result.returncode == 2
    assert 'time: invalid duration "5 minutes"' in result.stderr


def test_unknown_authorization_mode_exits_2() -> None:
    result = _run("--authorization-mode=RBACish")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        'Error: authorization-mode "RBACish" is not a valid mode '
        "(supported: AlwaysAllow, AlwaysDeny, ABAC, Node, RBAC, Webhook)"
    )


def test_repeated_authorization_mode_exits_2() -> None:
    result = _run("--authorization-mode=RBAC,RBAC")
    assert result.returncode == 2
    assert result.stderr.strip() == 'Error: authorization-mode "RBAC" has mode specified more than once'


def test_version() -> None:
    result = _run("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("svc-apiserver v1.36.0")


def test_help() -> None:
    result = _run("-h")
    assert result.returncode == 0
    assert "--secure-port" in result.stdout
    assert "--brand-profile" in result.stdout


def test_request_timeout_answers_504(svc_server_factory) -> None:
    import asyncio

    server = svc_server_factory("--request-timeout=200ms")
    store = server.server.stores[("", "v1", "configmaps")]
    original = store.list

    async def slow(*args, **kwargs):
        await asyncio.sleep(2)
        return await original(*args, **kwargs)

    store.list = slow
    response = server.client().request("GET", "/api/v1/namespaces/default/configmaps")
    assert response.status == 504
    assert response.json()["message"] == "Timeout: request did not complete within the allotted timeout"


def test_bad_timeout_parameter_is_400(svc_server) -> None:
    response = svc_server.client().request("GET", "/api/v1/namespaces", params={"timeout": "soon"})
    assert response.status == 400
    assert response.json()["message"].startswith("invalid timeout specified in the request URL")


def test_bad_boolean_names_go_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        parse_options(["--watch-cache=yes"])
    assert caught.value.code == 2
    assert capsys.readouterr().err == (
        'Error: argument --watch-cache: strconv.ParseBool: parsing "yes": invalid syntax\n'
    )
