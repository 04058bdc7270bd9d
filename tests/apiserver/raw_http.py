"""Raw HTTP/1.1 over TLS to a test server: for requests no well-behaved client library will send."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
from typing import Any

from svc.client.kubeconfig import load_kubeconfig
from svc.client.rest import ssl_context


def address(server: Any) -> tuple[str, int]:
    host, port = server.url.removeprefix("https://").rsplit(":", 1)
    return host, int(port)


def tls_context(server: Any) -> ssl.SSLContext:
    """Trusts the server's CA and presents the admin client certificate."""
    return ssl_context(load_kubeconfig(server.kubeconfig))


def connect(server: Any, timeout: float = 10.0) -> ssl.SSLSocket:
    host, port = address(server)
    sock = socket.create_connection((host, port), timeout=timeout)
    return tls_context(server).wrap_socket(sock, server_hostname=host)


def read_response(tls: ssl.SSLSocket) -> tuple[int, dict[str, str], Any]:
    response = http.client.HTTPResponse(tls)
    response.begin()
    body = response.read()
    is_json = response.headers.get("Content-Type", "").startswith("application/json")
    return response.status, dict(response.headers), json.loads(body) if is_json else body


def exchange(server: Any, data: bytes, timeout: float = 10.0) -> tuple[int, dict[str, str], Any]:
    """Send `data` as is on a fresh connection and read one response."""
    with connect(server, timeout) as tls:
        tls.sendall(data)
        return read_response(tls)


def closed_by_server(tls: ssl.SSLSocket) -> bool:
    """True when the server closed the connection (EOF or reset) before the socket's timeout."""
    try:
        return tls.recv(1) == b""
    except (ConnectionResetError, ssl.SSLError):
        return True
    except TimeoutError:
        return False
