"""`/debug/pprof/` (`--profiling`, on by default) and `/logs` (`--enable-logs-handler`, off by
default), authorized as non-resource URLs."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Callable
from pathlib import Path

from svc.testing.harness import RunningServer


def test_profiling_endpoints_are_served_by_default(svc_server: RunningServer) -> None:
    client = svc_server.client(timeout=30)
    assert b"profile" in client.request("GET", "/debug/pprof/").body
    profile = client.request("GET", "/debug/pprof/profile", params={"seconds": "1"})
    assert profile.status == 200
    lines = profile.body.decode().splitlines()
    assert lines and all(line.rsplit(" ", 1)[1].isdigit() for line in lines)  # collapsed stacks
    assert "run_forever" in profile.body.decode()  # the event loop's thread is the one sampled
    assert b"task " in client.request("GET", "/debug/pprof/goroutine", params={"debug": "2"}).body
    assert b"live objects" in client.request("GET", "/debug/pprof/heap").body


def test_profiling_off(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = svc_server_factory("--profiling=false").client()
    assert client.request("GET", "/debug/pprof/").status == 404


def test_profiling_needs_authorization(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory("--authorization-mode=RBAC")
    assert server.anonymous_client().request("GET", "/debug/pprof/").status == 403
    assert server.client().request("GET", "/debug/pprof/").status == 200


def test_logs_handler_is_off_by_default(svc_server: RunningServer) -> None:
    assert svc_server.client().request("GET", "/logs/").status == 404


def test_logs_handler_serves_the_log_directory(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    server = svc_server_factory("--enable-logs-handler")
    assert server.server is not None
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    (logs / "app.log").write_text("line one\n")
    (logs / "escape.log").symlink_to(tmp_path / "secret")
    (tmp_path / "secret").write_text("not a log\n")
    server.server.logs_directory = logs
    client = server.client()
    listing = client.request("GET", "/logs/")
    assert listing.status == 200
    assert b'<a href="app.log">app.log</a>' in listing.body and b'<a href="sub/">sub/</a>' in listing.body
    assert client.request("GET", "/logs/app.log").body == b"line one\n"
    assert client.request("GET", "/logs/escape.log").status == 404
    assert client.request("GET", "/logs/missing.log").status == 404


def test_put_debug_flags_v_changes_the_verbosity(svc_server: RunningServer) -> None:
    assert svc_server.server is not None
    client = svc_server.client()
    changed = client.request("PUT", "/debug/flags/v", body=b"5", content_type="text/plain")
    assert (changed.status, changed.body) == (200, b"successfully set klog.logging.verbosity to 5\n")
    assert svc_server.server.options.logging.verbosity == 5
    refused = client.request("PUT", "/debug/flags/v", body=b"loud", content_type="text/plain")
    assert refused.status == 400 and b"failed set klog.logging.verbosity loud" in refused.body
    assert client.request("GET", "/debug/flags/v").status == 406
    client.request("PUT", "/debug/flags/v", body=b"0", content_type="text/plain")


def test_debug_socket_serves_profiling_without_authentication(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    socket_path = tmp_path / "run" / "debug.sock"
    server = svc_server_factory(f"--debug-socket-path={socket_path}", "--profiling=false")
    assert server.server is not None
    connection = _UnixConnection(str(socket_path))
    connection.request("GET", "/debug/pprof/heap")
    response = connection.getresponse()
    assert response.status == 200 and b"live objects" in response.read()
    connection.request("PUT", "/debug/flags/v", body=b"3")
    assert connection.getresponse().read() == b"successfully set klog.logging.verbosity to 3\n"
    assert server.server.options.logging.verbosity == 3
    connection.request("PUT", "/debug/flags/v", body=b"0")
    connection.getresponse().read()
    connection.close()


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=10)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(self._path)
