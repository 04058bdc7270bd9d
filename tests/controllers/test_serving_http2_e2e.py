"""HTTP/2 on the daemon's secure port: ALPN offers h2 unless `--disable-http2-serving`, a request is
served over h2, and SETTINGS advertise `--http2-max-streams-per-connection` (Go's 100 when 0)."""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events
import h2.settings

from svc.testing.harness import RunningControllerManager, RunningServer


@dataclass
class _Exchange:
    protocol: str | None
    settings: dict[int, int] = field(default_factory=dict)
    status: int = 0
    body: bytes = b""


def _connect(port: int, alpn: list[str]) -> ssl.SSLSocket:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(alpn)
    return context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5))


def _h2_get(port: int, path: str) -> _Exchange:
    """GET `path` on one h2 stream; the server's SETTINGS and the answer, read within 10 seconds."""
    sock = _connect(port, ["h2", "http/1.1"])
    exchange = _Exchange(sock.selected_alpn_protocol())
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    connection.initiate_connection()
    fields = [(":method", "GET"), (":path", path), (":scheme", "https"), (":authority", f"127.0.0.1:{port}")]
    connection.send_headers(1, fields, end_stream=True)
    sock.sendall(connection.data_to_send())
    body = bytearray()
    ended = False
    deadline = time.monotonic() + 10
    while not ended and time.monotonic() < deadline:
        data = sock.recv(65536)
        if not data:
            break
        for event in connection.receive_data(data):
            if isinstance(event, h2.events.RemoteSettingsChanged):
                exchange.settings.update({code: change.new_value for code, change in event.changed_settings.items()})
            elif isinstance(event, h2.events.ResponseReceived):
                exchange.status = int(dict(event.headers)[":status"])
            elif isinstance(event, h2.events.DataReceived):
                body += event.data
            elif isinstance(event, h2.events.StreamEnded):
                ended = True
        sock.sendall(connection.data_to_send())
    sock.close()
    exchange.body = bytes(body)
    return exchange


def test_h2_is_negotiated_and_serves_healthz(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    running = svc_controller_manager(svc_server, "--controllers=ttl")
    exchange = _h2_get(running.port, "/healthz")
    assert exchange.protocol == "h2"
    assert (exchange.status, exchange.body) == (200, b"ok")
    assert exchange.settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] == 100


def test_max_streams_flag_is_advertised(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    running = svc_controller_manager(svc_server, "--controllers=ttl", "--http2-max-streams-per-connection=7")
    assert _h2_get(running.port, "/healthz").settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] == 7


def test_disable_http2_serving_offers_only_http11(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    running = svc_controller_manager(svc_server, "--controllers=ttl", "--disable-http2-serving")
    sock = _connect(running.port, ["h2", "http/1.1"])
    assert sock.selected_alpn_protocol() == "http/1.1"
    sock.close()
