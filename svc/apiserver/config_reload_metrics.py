"""Upstream's reload metrics of the structured authentication and authorization configuration files:
each automatic reload attempt counted and timestamped by status (`success`, `failure`) and the hashed
identity of the API server."""

from __future__ import annotations

import hashlib
import socket
import time

from prometheus_client import CollectorRegistry, Counter, Gauge


def apiserver_id_hash() -> str:
    """`sha256:` and the hex digest of the server's identity (`apiserver-` and a hash of the host name)."""
    identity = f"apiserver-{hashlib.sha256(socket.gethostname().encode()).hexdigest()[:16]}"
    return "sha256:" + hashlib.sha256(identity.encode()).hexdigest()


class ReloadMetrics:
    def __init__(self, registry: CollectorRegistry, subject: str) -> None:
        """`subject` is `authentication` or `authorization`."""
        labels = ["status", "apiserver_id_hash"]
        self.reloads = Counter(
            f"apiserver_{subject}_config_controller_automatic_reloads",
            f"[BETA] Total number of automatic reloads of {subject} configuration split by status and apiserver "
            "identity.",
            labels,
            registry=registry,
        )
        self.last = Gauge(
            f"apiserver_{subject}_config_controller_automatic_reload_last_timestamp_seconds",
            f"[BETA] Timestamp of the last automatic reload of {subject} configuration split by status and "
            "apiserver identity.",
            labels,
            registry=registry,
        )
        self.identity_hash = apiserver_id_hash()

    def record(self, status: str) -> None:
        self.reloads.labels(status, self.identity_hash).inc()
        self.last.labels(status, self.identity_hash).set(time.time())
