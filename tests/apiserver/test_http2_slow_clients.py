"""HTTP/2 slowloris: request headers over h2 have the same deadline as HTTP/1.1's (Go's ReadHeaderTimeout)."""

from __future__ import annotations

import contextlib
import socket
import ssl
import time

import h2.config
import h2.connection
import hpack
import pytest
from hyperframe.frame import ContinuationFrame, HeadersFrame

from tests.apiserver.raw_http import address, closed_by_server, tls_context

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


@pytest.fixture
def server(svc_server):
    svc_server.server.serving_limits.header_timeout = 1.0
    return svc_server


def _h2_socket(server) -> ssl.SSLSocket:
    host, port = address(server)
    context = tls_context(server)
    context.set_alpn_protocols(["h2"])
    tls = context.wrap_socket(socket.create_connection((host, port), timeout=10.0), server_hostname=host)
    assert tls.selected_alpn_protocol() == "h2"
    return tls


def _settings(tls: ssl.SSLSocket) -> None:
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    tls.sendall(client.data_to_send())


def _header_block(server) -> bytes:
    host, port = address(server)
    fields = [(":method", "GET"), (":path", "/version"), (":scheme", "https"), (":authority", f"{host}:{port}")]
    return hpack.Encoder().encode(fields)


def _closed_within(tls: ssl.SSLSocket, seconds: float) -> bool:
    """Drain what the server sends until it closes the connection or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        tls.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            if tls.recv(65536) == b"":
                return True
        except (ConnectionResetError, ssl.SSLError):
            return True
        except TimeoutError:
            return False
    return False


def test_a_stream_whose_headers_never_end_is_closed_at_the_deadline(server) -> None:
    with _h2_socket(server) as tls:
        _settings(tls)
        block = _header_block(server)
        started = time.monotonic()
        tls.sendall(HeadersFrame(1, data=block[:5], flags=["END_STREAM"]).serialize())
        closed = False
        for index in range(5, min(len(block), 60)):  # trickle one byte of the block at a time
            try:
                tls.sendall(ContinuationFrame(1, data=block[index : index + 1]).serialize())
            except (OSError, ssl.SSLError):
                closed = True
                break
            if _closed_within(tls, 0.2):
                closed = True
                break
        assert closed or _closed_within(tls, 10.0)
        assert time.monotonic() - started > 0.5


def test_a_connection_that_never_sends_the_preface_is_closed(server) -> None:
    with _h2_socket(server) as tls:
        tls.sendall(PREFACE[:10])
        started = time.monotonic()
        assert _closed_within(tls, 10.0)
        assert time.monotonic() - started > 0.5


def test_a_connection_with_complete_headers_outlives_the_deadline(server) -> None:
    with _h2_socket(server) as tls:
        _settings(tls)
        tls.sendall(HeadersFrame(1, data=_header_block(server), flags=["END_HEADERS", "END_STREAM"]).serialize())
        assert not _closed_within(tls, 2.0)
        tls.settimeout(0.5)
        assert not closed_by_server(tls)


def test_h2_connections_waiting_for_headers_count_in_the_pending_bound(svc_server) -> None:
    pending = svc_server.server.http_server.pending
    pending.limit = 3
    slow = [_h2_socket(svc_server) for _ in range(5)]
    try:
        for tls in slow:
            with contextlib.suppress(OSError):  # the first ones may be shed already
                _settings(tls)
                tls.sendall(HeadersFrame(1, data=_header_block(svc_server)[:5]).serialize())
        assert all(_closed_within(tls, 5.0) for tls in slow[:2])  # the longest waiting, long before 32 s
        assert not any(_closed_within(tls, 0.2) for tls in slow[2:])
        assert len(pending) == 3
    finally:
        for tls in slow:
            tls.close()
