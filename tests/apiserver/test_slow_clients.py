"""Slow and idle clients: Go's ReadHeaderTimeout and IdleTimeout, and the bound on connections sending headers."""

from __future__ import annotations

import contextlib
import json
import ssl
import statistics
import time

import pytest

from tests.apiserver.raw_http import closed_by_server, connect, read_response

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
PARTIAL_REQUEST = b"GET /api HTTP/1.1\r\nHost: x\r\n"


@pytest.fixture
def server(svc_server):
    svc_server.server.serving_limits.header_timeout = 1.0
    return svc_server


def _wait_closed(tls: ssl.SSLSocket, within: float) -> bool:
    tls.settimeout(within)
    return closed_by_server(tls)


def test_a_connection_without_complete_headers_is_closed_at_the_deadline(server) -> None:
    with connect(server) as tls:
        tls.sendall(PARTIAL_REQUEST)
        started = time.monotonic()
        assert _wait_closed(tls, within=10.0)
        assert time.monotonic() - started > 0.5


def test_trickling_bytes_does_not_extend_the_deadline(server) -> None:
    with connect(server) as tls:
        tls.sendall(PARTIAL_REQUEST + b"X-Slow: ")
        closed = False
        for _ in range(50):
            try:
                tls.sendall(b"a")
            except (OSError, ssl.SSLError):
                closed = True
                break
            tls.settimeout(0.2)
            if closed_by_server(tls):
                closed = True
                break
        assert closed


def test_a_watch_outlives_the_header_and_idle_deadlines(server) -> None:
    server.server.serving_limits.idle_timeout = 1.0
    api = server.client()
    with connect(server) as tls:
        tls.sendall(f"GET {CONFIGMAPS}?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        tls.settimeout(10.0)
        head = b""
        while b"\r\n\r\n" not in head:
            head += tls.recv(1)
        assert head.startswith(b"HTTP/1.1 200")
        time.sleep(2.5)
        assert api.request("POST", CONFIGMAPS, body={"metadata": {"name": "late"}}).status == 201
        received = b""
        for _ in range(100):
            received += tls.recv(65536)
            if b"late" in received:
                break
        assert b'"ADDED"' in received
        assert b"late" in received


def test_an_idle_keep_alive_connection_is_not_cut_by_the_header_deadline(server) -> None:
    request = b"GET /api HTTP/1.1\r\nHost: x\r\n\r\n"
    with connect(server) as tls:
        tls.sendall(request)
        assert read_response(tls)[0] == 200
        time.sleep(2.5)
        tls.sendall(request)
        assert read_response(tls)[0] == 200


def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout(server) -> None:
    server.server.serving_limits.idle_timeout = 1.0
    with connect(server) as tls:
        tls.sendall(b"GET /api HTTP/1.1\r\nHost: x\r\n\r\n")
        assert read_response(tls)[0] == 200
        assert _wait_closed(tls, within=10.0)


def test_slow_connections_do_not_delay_normal_requests_and_are_closed(server) -> None:
    api = server.client(timeout=10.0)
    slow = [connect(server) for _ in range(200)]
    open_ = list(slow)
    try:
        for tls in slow:
            tls.sendall(PARTIAL_REQUEST + b"X-Slow: ")
        latencies = []
        deadline = time.monotonic() + 20.0
        while open_ and time.monotonic() < deadline:
            started = time.monotonic()
            assert api.request("GET", "/api").status == 200
            latencies.append(time.monotonic() - started)
            still_open = []
            for tls in open_:
                try:
                    tls.sendall(b"a")
                    still_open.append(tls)
                except (OSError, ssl.SSLError):
                    pass
            open_ = still_open
            time.sleep(0.2)
        assert len(latencies) >= 2
        # Issue 24's bound for normal requests during a slowloris; the median, so that one scheduling
        # hiccup of a loaded machine does not decide it.
        assert statistics.median(latencies) < 0.1
        assert open_ == []
    finally:
        for tls in slow:
            with contextlib.suppress(OSError):
                tls.close()


def test_past_the_bound_the_longest_waiting_connections_are_shed(svc_server) -> None:
    assert svc_server.server.http_server is not None
    pending = svc_server.server.http_server.pending
    pending.limit = 20
    api = svc_server.client()
    slow = [connect(svc_server) for _ in range(50)]
    try:
        for tls in slow:
            tls.sendall(PARTIAL_REQUEST)
        shed = [_wait_closed(tls, within=2.0) for tls in slow[:30]]
        kept = [_wait_closed(tls, within=0.05) for tls in slow[30:]]
        assert all(shed)
        assert not any(kept)
        assert len(pending) == 20
        assert api.request("GET", "/api").status == 200
        slow[-1].sendall(b"\r\n")
        status, _, body = read_response(slow[-1])
        assert status == 200
        assert json.dumps(body)
    finally:
        for tls in slow:
            with contextlib.suppress(OSError):
                tls.close()
