"""A minimal blocking HTTP/2 client over TLS (the `h2` state machine on a socket), for tests that need
to see frames: several streams on one connection, SETTINGS, GOAWAY, RST_STREAM."""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from typing import Any

import h2.config
import h2.connection
import h2.events

from tests.apiserver.raw_http import address, tls_context


@dataclass
class StreamResult:
    headers: dict[str, str] = field(default_factory=dict)
    body: bytearray = field(default_factory=bytearray)
    ended: bool = False
    reset: bool = False

    @property
    def status(self) -> int:
        return int(self.headers[":status"])


class H2Client:
    def __init__(self, server: Any, *, alpn: tuple[str, ...] = ("h2",), timeout: float = 10.0) -> None:
        host, port = address(server)
        context = tls_context(server)
        context.set_alpn_protocols(list(alpn))
        self.sock = context.wrap_socket(socket.create_connection((host, port), timeout=timeout), server_hostname=host)
        self.authority = f"{host}:{port}"
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.streams: dict[int, StreamResult] = {}
        self.goaway = False
        self.remote_settings: dict[int, int] = {}
        if self.sock.selected_alpn_protocol() == "h2":
            self.h2.initiate_connection()
            self._flush()

    @property
    def protocol(self) -> str | None:
        return self.sock.selected_alpn_protocol()

    def close(self) -> None:
        self.sock.close()

    def _flush(self) -> None:
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def start(self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None) -> int:
        stream_id = self.h2.get_next_available_stream_id()
        fields = [(":method", method), (":path", path), (":scheme", "https"), (":authority", self.authority)]
        fields += [(name.lower(), value) for name, value in (headers or {}).items()]
        self.h2.send_headers(stream_id, fields, end_stream=not body)
        if body:
            self.h2.send_data(stream_id, body, end_stream=True)
        self.streams[stream_id] = StreamResult()
        self._flush()
        return stream_id

    def reset(self, stream_id: int) -> None:
        self.h2.reset_stream(stream_id)
        self._flush()

    def pump(self, until: Any, timeout: float = 10.0) -> None:
        """Read frames until `until()` is true (or the connection closes); bounded by `timeout`."""
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError("no answer in time")
            self.sock.settimeout(max(deadline - time.monotonic(), 0.01))
            data = self.sock.recv(65536)
            if not data:
                return
            for event in self.h2.receive_data(data):
                self._on(event)
            self._flush()

    def _on(self, event: h2.events.Event) -> None:
        stream = self.streams.get(getattr(event, "stream_id", 0) or 0)
        if isinstance(event, h2.events.ResponseReceived) and stream is not None:
            stream.headers = dict(event.headers)
        elif isinstance(event, h2.events.DataReceived) and stream is not None:
            stream.body += event.data
            self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded) and stream is not None:
            stream.ended = True
        elif isinstance(event, h2.events.StreamReset) and stream is not None:
            stream.reset = True
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.goaway = True
        elif isinstance(event, h2.events.RemoteSettingsChanged):
            self.remote_settings.update({code: change.new_value for code, change in event.changed_settings.items()})

    def request(self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None) -> StreamResult:
        stream_id = self.start(method, path, body, headers)
        result = self.streams[stream_id]
        self.pump(lambda: result.ended or result.reset)
        return result
