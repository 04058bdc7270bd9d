"""A small synchronous REST client over one kept-alive HTTPS connection (standard library only).

Used by svcctl and by the test harness; it speaks JSON by default and returns raw responses so
callers can check status codes and headers exactly.
"""

from __future__ import annotations

import base64
import gzip
import http.client
import json
import socket
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from svc.client.kubeconfig import ClientConfig
from svc.client.tls import ssl_context


@dataclass
class Response:
    status: int
    headers: http.client.HTTPMessage
    body: bytes
    warnings: list[str] = field(default_factory=list)

    def json(self) -> Any:
        return json.loads(self.body)


def _put_request(
    connection: http.client.HTTPConnection, method: str, path: str, body: bytes | None, headers: list[tuple[str, str]]
) -> None:
    connection.putrequest(method, path, skip_accept_encoding=True)
    for name, value in headers:
        connection.putheader(name, value)
    if body is not None:
        connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)


class _TLSConnection(http.client.HTTPSConnection):
    """HTTPS whose certificate is checked against a chosen server name (`tls-server-name`)."""

    def __init__(self, *args: Any, server_hostname: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._server_hostname = server_hostname

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self._server_hostname)


class RestClient:
    def __init__(
        self,
        config: ClientConfig,
        *,
        timeout: float | None = 30.0,
        headers: Mapping[str, str] | None = None,
        extra_headers: list[tuple[str, str]] | None = None,
    ) -> None:
        """`extra_headers` are sent as given, repeated names included (impersonated groups)."""
        self.config = config
        self.timeout = timeout
        self.headers = dict(headers or {})
        self.extra_headers = list(extra_headers or [])
        parts = urlsplit(config.server)
        self._host = parts.hostname or "localhost"
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._https = parts.scheme == "https"
        self._ssl = ssl_context(config) if self._https else None
        self._connection: http.client.HTTPConnection | None = None
        if config.token:
            self.headers.setdefault("Authorization", f"Bearer {config.token}")
        elif config.username:
            credentials = base64.b64encode(f"{config.username}:{config.password}".encode()).decode()
            self.headers.setdefault("Authorization", f"Basic {credentials}")

    def _connect(self) -> http.client.HTTPConnection:
        if self._https:
            assert self._ssl is not None
            return _TLSConnection(
                self._host,
                self._port,
                timeout=self.timeout,
                context=self._ssl,
                server_hostname=self.config.tls_server_name or self._host,
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> http.client.HTTPResponse:
        for attempt in range(2):
            if self._connection is None:
                self._connection = self._connect()
            # A local reference: a close() from another thread (a test stopping its server) then fails
            # this request with a connection error instead of finding no connection half-way.
            connection = self._connection
            try:
                _put_request(connection, method, path, body, [*headers.items(), *self.extra_headers])
                return connection.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        content_type: str = "application/json",
        accept: str = "application/json",
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        if params:
            path = f"{path}?{urlencode(params, doseq=True)}"
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        all_headers = {**self.headers, "Accept": accept, **(headers or {})}
        if data is not None:
            all_headers["Content-Type"] = content_type
        response = self._send(method, path, data, all_headers)
        payload = response.read()
        if response.headers.get("Content-Encoding") == "gzip":
            payload = gzip.decompress(payload)
        warnings = response.headers.get_all("Warning") or []
        return Response(response.status, response.headers, payload, warnings)

    def stream(self, path: str, *, params: Mapping[str, Any] | None = None, accept: str = "application/json") -> Stream:
        """A streaming response (a watch) on a connection of its own, without a read timeout."""
        if params:
            path = f"{path}?{urlencode(params, doseq=True)}"
        connection = self._connect()
        connection.timeout = None
        _put_request(connection, "GET", path, None, [*{**self.headers, "Accept": accept}.items(), *self.extra_headers])
        response = connection.getresponse()
        if response.status != 200:
            body = response.read()
            connection.close()
            raise http.client.HTTPException(f"watch failed with {response.status}: {body!r}")
        return Stream(connection, response)


class Stream:
    """Lines of a streaming response; `close()` may be called from another thread to drop it."""

    def __init__(self, connection: http.client.HTTPConnection, response: http.client.HTTPResponse) -> None:
        self._connection = connection
        self._response = response

    def __iter__(self) -> Iterator[bytes]:
        try:
            while line := self._response.readline():
                yield line
        except (OSError, ValueError, http.client.HTTPException):
            return
        finally:
            self._connection.close()

    def read(self, size: int) -> bytes:
        """Raw bytes of a binary stream (a Protobuf watch)."""
        return self._response.read(size)

    def close(self) -> None:
        """Shut the socket down; the reading thread then ends and closes the connection."""
        sock = self._connection.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
