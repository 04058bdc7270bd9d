"""Client-certificate and front-proxy authentication on the daemon's secure port: `/metrics` (which
needs authorization; without `--authorization-kubeconfig` only system:masters passes) is served to a
certificate of `--client-ca-file`, to a front proxy naming a system:masters user in the headers, and
to the admin certificate when the client CA is looked up in the cluster's ConfigMap."""

from __future__ import annotations

import http.client
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from svc.client.kubeconfig import load_kubeconfig
from svc.testing.harness import RunningControllerManager, RunningServer
from tests.apiserver.authn.peers import Authority

Start = Callable[..., RunningControllerManager]
MASTERS = ("system:masters",)


def _get(port: int, path: str, *, cert: tuple[Path, Path] | None = None, headers: dict[str, str] | None = None) -> int:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    if cert is not None:
        context.load_cert_chain(*cert)
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=context)
    try:
        connection.request("GET", path, headers=headers or {})
        return connection.getresponse().status
    finally:
        connection.close()


def _ca_file(authority: Authority, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.crt"
    path.write_text(authority.pem)
    return path


def test_metrics_are_served_to_a_certificate_of_the_client_ca(
    svc_server: RunningServer, svc_controller_manager: Start, tmp_path: Path
) -> None:
    authority = Authority.create("client-ca")
    running = svc_controller_manager(
        svc_server, "--controllers=ttl", f"--client-ca-file={_ca_file(authority, tmp_path, 'ca')}"
    )
    admin = authority.write_pair(tmp_path, "operator", organizations=MASTERS)
    assert _get(running.port, "/metrics", cert=admin) == 200
    assert _get(running.port, "/metrics") == 403


def test_a_certificate_of_another_ca_is_refused_with_401(
    svc_server: RunningServer, svc_controller_manager: Start, tmp_path: Path
) -> None:
    authority = Authority.create("client-ca")
    running = svc_controller_manager(
        svc_server, "--controllers=ttl", f"--client-ca-file={_ca_file(authority, tmp_path, 'ca')}"
    )
    stranger = Authority.create("other-ca").write_pair(tmp_path, "operator", organizations=MASTERS)
    assert _get(running.port, "/metrics", cert=stranger) == 401


def _front_proxy(svc_server: RunningServer, start: Start, proxy_ca: Authority, tmp_path: Path) -> int:
    running = start(
        svc_server,
        "--controllers=ttl",
        f"--requestheader-client-ca-file={_ca_file(proxy_ca, tmp_path, 'proxy-ca')}",
        "--requestheader-allowed-names=front-proxy",
    )
    return running.port


def test_a_front_proxy_names_the_user_in_the_headers(
    svc_server: RunningServer, svc_controller_manager: Start, tmp_path: Path
) -> None:
    proxy_ca = Authority.create("front-proxy-ca")
    port = _front_proxy(svc_server, svc_controller_manager, proxy_ca, tmp_path)
    proxy = proxy_ca.write_pair(tmp_path, "front-proxy")
    headers = {"X-Remote-User": "alice", "X-Remote-Group": "system:masters"}
    assert _get(port, "/metrics", cert=proxy, headers=headers) == 200
    assert _get(port, "/metrics", headers=headers) == 403  # forged headers without the proxy's certificate


def test_a_proxy_name_not_allowed_is_refused_with_401(
    svc_server: RunningServer, svc_controller_manager: Start, tmp_path: Path
) -> None:
    proxy_ca = Authority.create("front-proxy-ca")
    port = _front_proxy(svc_server, svc_controller_manager, proxy_ca, tmp_path)
    intruder = proxy_ca.write_pair(tmp_path, "intruder")
    headers = {"X-Remote-User": "alice", "X-Remote-Group": "system:masters"}
    assert _get(port, "/metrics", cert=intruder, headers=headers) == 401


def test_the_client_ca_is_looked_up_in_the_cluster(
    svc_server: RunningServer, svc_controller_manager: Start, tmp_path: Path
) -> None:
    running = svc_controller_manager(
        svc_server, "--controllers=ttl", f"--authentication-kubeconfig={svc_server.kubeconfig}"
    )
    assert _get(running.port, "/metrics", cert=_admin_pair(svc_server, tmp_path)) == 200


def _anonymous_kubeconfig(svc_server: RunningServer, tmp_path: Path) -> Path:
    """The server's kubeconfig without its user's credentials (the lookup is then refused with 401)."""
    config = yaml.safe_load(svc_server.kubeconfig.read_text())
    for user in config["users"]:
        user["user"] = {}
    path = tmp_path / "anonymous.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


def _daemon(svc_server: RunningServer, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "svc.controllers", f"--kubeconfig={svc_server.kubeconfig}", "--secure-port=0"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=60, check=False)


def test_a_failed_lookup_stops_the_daemon(svc_server: RunningServer, tmp_path: Path) -> None:
    anonymous = _anonymous_kubeconfig(svc_server, tmp_path)
    finished = _daemon(svc_server, "--controllers=ttl", f"--authentication-kubeconfig={anonymous}")
    assert finished.returncode == 1
    assert "Error: unable to load configmap based request-header-client-ca-file: 401" in finished.stderr


def _admin_pair(svc_server: RunningServer, tmp_path: Path) -> tuple[Path, Path]:
    """The admin's certificate, of the API server's client CA (the ConfigMap's at start)."""
    config = load_kubeconfig(svc_server.kubeconfig)
    cert, key = tmp_path / "admin.crt", tmp_path / "admin.key"
    cert.write_bytes(config.cert_data)
    key.write_bytes(config.key_data)
    return cert, key


def test_a_client_ca_rotated_in_the_configmap_is_followed_without_restart(
    svc_server: RunningServer, svc_controller_manager: Start, tmp_path: Path
) -> None:
    running = svc_controller_manager(
        svc_server, "--controllers=ttl", f"--authentication-kubeconfig={svc_server.kubeconfig}"
    )
    admin = _admin_pair(svc_server, tmp_path)
    assert _get(running.port, "/metrics", cert=admin) == 200
    rotated = Authority.create("rotated-client-ca")
    operator = rotated.write_pair(tmp_path, "operator", organizations=MASTERS)
    path = "/api/v1/namespaces/svc-system/configmaps/extension-apiserver-authentication"
    client = svc_server.client()
    configmap = client.request("GET", path).json()
    configmap["data"]["client-ca-file"] = rotated.pem
    assert client.request("PUT", path, body=configmap).status == 200
    deadline = time.monotonic() + 20
    while _get(running.port, "/metrics", cert=operator) != 200:
        assert time.monotonic() < deadline, "the rotated CA was not followed in time"
        time.sleep(0.2)
    assert _get(running.port, "/metrics", cert=admin) == 401
