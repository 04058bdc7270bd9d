"""Upstream's reload metrics of the structured authentication and authorization configuration files:
each automatic reload attempt counted and timestamped by status (`success`, `failure`) and the hashed
identity of the API server."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge

from svc.storage.encryption.metrics import apiserver_id_hash

log = logging.getLogger(__name__)


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


class Recorder(Protocol):
    def record(self, status: str) -> None: ...


async def read_if_changed(path: str, previous: bytes, metrics: Recorder, what: str) -> bytes | None:
    """The file's bytes when they differ from `previous`; None when unchanged or unreadable (a read
    failure is logged and counted, and the running configuration stays)."""
    try:
        data = await asyncio.to_thread(Path(path).read_bytes)
    except OSError as error:
        log.error("error reading %s, keeping the previous configuration: %s", what, error)
        metrics.record("failure")
        return None
    return None if data == previous else data
