"""The limits the HTTP layer applies, with kube-apiserver's values as defaults.

One mutable object per server, read on every new connection, so a test can shorten a deadline on a
running server.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ServingLimits:
    # `ReadHeaderTimeout` of kube-apiserver's http.Server: just under its 34 s request timeout bound.
    header_timeout: float = 32.0
    # `IdleTimeout`: matches the keep-alive timeout of Go's default HTTP transport.
    idle_timeout: float = 90.0
    # `MaxHeaderBytes`: request line and headers together.
    max_header_bytes: int = 1 << 20
    # Connections allowed to wait for their headers at once (see `pending_connections`).
    max_pending_connections: int = 2048
