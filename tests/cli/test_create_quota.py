"""svcctl create quota against the real svc-apiserver process, and beside upstream kubectl."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import TOOLS


def svcctl(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "svc.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "SVCRC": "off", **(env or {})},
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from svc.testing.harness import start_process, stop_process

    directory = tmp_path_factory.mktemp("svcctl")
    tokens = directory / "tokens.csv"
    tokens.write_text('tok-admin,tina,uid-t,"system:masters"\ntok-plain,paul,uid-p\n')
    running = start_process(directory / "data", f"--token-auth-file={tokens}", "--authorization-mode=AlwaysDeny")
    yield running
    stop_process(running)


@pytest.fixture
def config(server) -> str:
    return str(server.kubeconfig)


def _get(server, namespace: str, name: str) -> dict:
    return server.client().request("GET", f"/api/v1/namespaces/{namespace}/resourcequotas/{name}").json()


def test_create_prints_created(server, config) -> None:
    result = svcctl("--svcconfig", config, "create", "quota", "q-plain", "--hard=cpu=1,memory=1Gi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "resourcequota/q-plain created\n"
    assert _get(server, "default", "q-plain")["spec"]["hard"] == {"cpu": "1", "memory": "1Gi"}


@pytest.mark.parametrize(
    ("output", "check"),
    [
        ("json", lambda out: json.loads(out)["metadata"]["name"] == "q-json"),
        ("yaml", lambda out: yaml.safe_load(out)["spec"]["hard"] == {"pods": "2"}),
        ("name", lambda out: out == "resourcequota/q-name\n"),
        ("jsonpath={.spec.hard.pods}", lambda out: out == "2"),
        ("go-template={{.metadata.name}}", lambda out: out == "q-go-template"),
        ("jsonpath-as-json={.spec.hard}", lambda out: json.loads(out) == [{"pods": "2"}]),
    ],
    ids=["json", "yaml", "name", "jsonpath", "go-template", "jsonpath-as-json"],
)
def test_output_formats(config, output, check) -> None:
    name = "q-" + output.split("=")[0]
    result = svcctl("--svcconfig", config, "create", "quota", name, "--hard=pods=2", "-o", output)
    assert result.returncode == 0, result.stderr
    assert check(result.stdout)


def test_kyaml_output(config) -> None:
    result = svcctl("--svcconfig", config, "create", "quota", "q-kyaml", "--hard=pods=2", "-o", "kyaml")
    assert result.returncode == 0, result.stderr
    assert "q-kyaml" in result.stdout


def test_template_files(config, tmp_path: Path) -> None:
    template = tmp_path / "t.tmpl"
    template.write_text("{{.spec.hard.pods}}")
    result = svcctl(
        "--svcconfig",
        config,
        "create",
        "quota",
        "q-file",
        "--hard=pods=3",
        "-o",
        "go-template-file",
        "--template",
        str(template),
    )
    assert result.stdout == "3"


def test_missing_key_allowed_and_refused(config) -> None:
    allowed = svcctl(
        "--svcconfig",
        config,
        "create",
        "quota",
        "q-missing-1",
        "--dry-run=client",
        "-o",
        "go-template={{.spec.nothing}}",
    )
    assert (allowed.returncode, allowed.stdout) == (0, "<no value>")
    refused = svcctl(
        "--svcconfig",
        config,
        "create",
        "quota",
        "q-missing-2",
        "--dry-run=client",
        "-o",
        "jsonpath={.spec.nothing}",
        "--allow-missing-template-keys=false",
    )
    assert refused.returncode == 1
    assert refused.stderr.startswith("error: ")
    assert "nothing is not found" in refused.stderr


def test_dry_run_client_sends_nothing(server, config) -> None:
    result = svcctl("--svcconfig", config, "create", "quota", "q-client", "--dry-run=client")
    assert result.stdout == "resourcequota/q-client created (dry run)\n"
    assert _get(server, "default", "q-client")["reason"] == "NotFound"


def test_dry_run_server_stores_nothing(server, config) -> None:
    result = svcctl("--svcconfig", config, "create", "quota", "q-server", "--dry-run=server", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["metadata"]["name"] == "q-server"
    assert _get(server, "default", "q-server")["reason"] == "NotFound"


def test_bare_dry_run_means_client_with_warning(config) -> None:
    result = svcctl("--svcconfig", config, "create", "quota", "q-bare", "--dry-run", "-o", "name")
    assert result.stdout == "resourcequota/q-bare\n"
    assert "--dry-run is deprecated" in result.stderr


def test_bad_dry_run_value(config) -> None:
    result = svcctl("--svcconfig", config, "create", "quota", "q", "--dry-run=maybe")
    assert result.returncode == 1
    assert result.stderr == 'error: Invalid dry-run value (maybe). Must be "none", "server", or "client".\n'


@pytest.mark.parametrize("level", ["strict", "true", "warn", "ignore", "false"])
def test_validate_levels_are_accepted(config, level) -> None:
    result = svcctl("--svcconfig", config, "create", "quota", f"q-validate-{level}", f"--validate={level}")
    assert result.returncode == 0, result.stderr


def test_bad_validate_level(config) -> None:
    result = svcctl("--svcconfig", config, "create", "quota", "q", "--validate=loose")
    assert result.returncode == 1
    assert "must be one of: strict (or true), warn, ignore (or false)" in result.stderr


def test_save_config_writes_last_applied(server, config) -> None:
    svcctl("--svcconfig", config, "create", "quota", "q-saved", "--hard=cpu=2", "--save-config")
    annotations = _get(server, "default", "q-saved")["metadata"]["annotations"]
    applied = json.loads(annotations["svcctl.svc.io/last-applied-configuration"])
    assert applied["spec"] == {"hard": {"cpu": "2"}}


def test_field_manager(server, config) -> None:
    svcctl("--svcconfig", config, "create", "quota", "q-managed", "--hard=cpu=2", "--field-manager=mine")
    managers = [entry["manager"] for entry in _get(server, "default", "q-managed")["metadata"]["managedFields"]]
    assert managers == ["mine"]
    default = svcctl("--svcconfig", config, "create", "quota", "q-default-manager", "--hard=cpu=2")
    assert default.returncode == 0
    entries = _get(server, "default", "q-default-manager")["metadata"]["managedFields"]
    assert entries[0]["manager"] == "svcctl-create"


def test_show_managed_fields(config) -> None:
    hidden = json.loads(svcctl("--svcconfig", config, "create", "quota", "q-mf1", "--hard=cpu=1", "-o", "json").stdout)
    assert "managedFields" not in hidden["metadata"]
    shown = json.loads(
        svcctl(
            "--svcconfig", config, "create", "quota", "q-mf2", "--hard=cpu=1", "-o", "json", "--show-managed-fields"
        ).stdout
    )
    assert shown["metadata"]["managedFields"]


def test_impersonation_headers_reach_the_server(config) -> None:
    denied = svcctl("--svcconfig", config, "--as=bob", "create", "quota", "q-as")
    assert denied.returncode == 1
    assert denied.stderr.startswith('Error from server (Forbidden): resourcequotas is forbidden: User "bob"')
    allowed = svcctl("--svcconfig", config, "--as=bob", "--as-group=system:masters", "create", "quota", "q-as")
    assert allowed.returncode == 0, allowed.stderr


def _multi_context_config(server, tmp_path: Path) -> Path:
    document = yaml.safe_load(server.kubeconfig.read_text())
    cluster = document["clusters"][0]["name"]
    document["users"].append({"name": "token-user", "user": {"token": "tok-admin"}})
    document["users"].append({"name": "plain-user", "user": {"token": "tok-plain"}})
    document["contexts"] += [
        {"name": "by-token", "context": {"cluster": cluster, "user": "token-user", "namespace": "svc-public"}},
        {"name": "plain", "context": {"cluster": cluster, "user": "plain-user"}},
    ]
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(document))
    return path


def test_token_and_certificate_contexts(server, tmp_path: Path) -> None:
    path = str(_multi_context_config(server, tmp_path))
    by_token = svcctl("--svcconfig", path, "--context", "by-token", "create", "quota", "q-token")
    assert by_token.returncode == 0, by_token.stderr
    assert _get(server, "svc-public", "q-token")["metadata"]["name"] == "q-token"
    by_cert = svcctl("create", "quota", "q-cert", "-n", "svc-public", env={"SVCCONFIG": path})
    assert by_cert.returncode == 0, by_cert.stderr
    plain = svcctl("--svcconfig", path, "--context", "plain", "create", "quota", "q-plain-user")
    assert 'User "paul" cannot create resource "resourcequotas"' in plain.stderr


def test_server_error_is_printed_like_upstream(config) -> None:
    svcctl("--svcconfig", config, "create", "quota", "q-twice")
    again = svcctl("--svcconfig", config, "create", "quota", "q-twice")
    assert again.returncode == 1
    assert again.stderr == 'Error from server (AlreadyExists): resourcequotas "q-twice" already exists\n'


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["create", "quota", "q", "--bogus"], "error: unrecognized arguments: --bogus"),
        (["create", "quota", "q", "--hard=cpu=lots"], "error: cpu: quantities must match the regular expression"),
        (["create", "quota", "q", "--hard=cpu"], "error: Invalid argument syntax cpu, expected <resource>=<value>"),
        (["create", "quota", "q", "--hard=cpu=1,cpu=2"], 'error: duplicate resource "cpu" in --hard'),
        (["create", "quota", "q", "--scopes=Sometimes"], 'error: unknown scope "Sometimes"'),
        (["create", "quota"], "error: exactly one NAME is required, got 0"),
        (["--svcconfig=/no/such/file", "create", "quota", "q"], "error: stat /no/such/file: no such file or directory"),
        (["--request-timeout=5x", "create", "quota", "q"], "error: argument --request-timeout: Invalid timeout value."),
    ],
)
def test_bad_input_is_one_clear_line(args, message) -> None:
    result = svcctl(*args)
    assert result.returncode != 0
    assert result.stderr.startswith(message), result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_server(tmp_path) -> None:
    result = svcctl("-s", "https://127.0.0.1:1", "--insecure-skip-tls-verify", "create", "quota", "q")
    assert result.returncode == 1
    assert result.stderr == (
        "error: The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n"
    )


def test_bad_kubeconfig(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.write_text("clusters: [unterminated")
    result = svcctl("--svcconfig", str(broken), "create", "quota", "q")
    assert result.returncode == 1
    assert result.stderr.startswith("error: error loading config file")
    assert "Traceback" not in result.stderr


@pytest.fixture
def warning_server():
    """A plain HTTP endpoint answering every create with a Warning header (to test the client side)."""
    import asyncio
    import threading

    from aiohttp import web

    async def created(request: web.Request) -> web.Response:
        body = await request.json()
        response = web.json_response(body, status=201)
        response.headers.add("Warning", '299 - "unknown field \\"spec.extra\\""')
        return response

    loop = asyncio.new_event_loop()
    app = web.Application()
    app.router.add_post("/api/v1/namespaces/{namespace}/resourcequotas", created)
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = site._server.sockets[0].getsockname()[1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    loop.call_soon_threadsafe(loop.stop)
    thread.join()
    loop.run_until_complete(runner.cleanup())
    loop.close()


def test_server_warnings_are_printed(warning_server) -> None:
    result = svcctl("-s", warning_server, "create", "quota", "q-warn")
    assert result.returncode == 0
    assert result.stderr == 'Warning: unknown field "spec.extra"\n'


def test_warnings_as_errors(warning_server) -> None:
    result = svcctl("-s", warning_server, "--warnings-as-errors", "create", "quota", "q-warn")
    assert result.returncode == 1
    assert result.stderr.endswith("error: 1 warning received\n")


def test_version() -> None:
    result = svcctl("--version")
    assert result.stdout.startswith("Client Version: v1.36.0")


def test_profiles(config, tmp_path: Path) -> None:
    output = tmp_path / "cpu.prof"
    result = svcctl(
        "--svcconfig",
        config,
        "--profile=cpu",
        f"--profile-output={output}",
        "create",
        "quota",
        "q-prof",
        "--dry-run=client",
    )
    assert result.returncode == 0
    assert output.stat().st_size > 0
    refused = svcctl("--profile=mutex", "create", "quota", "q", "--dry-run=client")
    assert refused.returncode == 1
    assert 'profile "mutex" has no Python equivalent' in refused.stderr


def test_preferences_file_sets_defaults(config, tmp_path: Path) -> None:
    preferences = tmp_path / "svcrc"
    preferences.write_text(
        "apiVersion: svcctl.config.svc/v1beta1\nkind: Preference\n"
        "defaults:\n- command: create quota\n  options:\n  - name: output\n    default: name\n"
    )
    result = svcctl("--svcconfig", config, f"--svcrc={preferences}", "create", "quota", "q-prefs", "--dry-run=client")
    assert result.stdout == "resourcequota/q-prefs\n"


def test_same_object_as_upstream_kubectl(server) -> None:
    upstream = str(TOOLS / "kubectl")
    args = [
        "create",
        "quota",
        "compare",
        "--hard=cpu=1,memory=2Gi,pods=4",
        "--scopes=BestEffort",
        "--dry-run=client",
        "-o",
        "yaml",
    ]
    ours = svcctl(*args)
    theirs = subprocess.run([upstream, *args], capture_output=True, text=True, timeout=60, check=False)
    assert ours.stdout == theirs.stdout
    ours_json = json.loads(svcctl(*args[:-2], "-o", "json").stdout)
    theirs_json = json.loads(
        subprocess.run(
            [upstream, *args[:-2], "-o", "json"], capture_output=True, text=True, timeout=60, check=False
        ).stdout
    )
    assert ours_json == theirs_json


def test_created_object_matches_upstream_kubectl(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    args = ["create", "quota", "--hard=cpu=1,memory=2Gi", "--scopes=NotBestEffort", "-o", "json"]
    ours = json.loads(svcctl("--svcconfig", str(server.kubeconfig), *args[:2], "ours", *args[2:]).stdout)
    upstream = subprocess.run(
        [str(TOOLS / "kubectl"), "--kubeconfig", str(server.kubeconfig), *args[:2], "theirs", *args[2:]],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    theirs = json.loads(upstream.stdout)
    server_set = ("name", "uid", "resourceVersion", "creationTimestamp", "managedFields")
    for obj in (ours, theirs):
        for key in server_set:
            obj["metadata"].pop(key, None)
    assert ours == theirs
