"""Upstream's audit metrics: events sent to the backend, the policy level of each audited request,
and events a backend failed to write (by plugin: `log`)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter

from svc.apiserver.audit.policy import Level
from svc.apiserver.deferred_counts import DeferredCount, FlushOnCollect


class AuditMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        FlushOnCollect(registry, self._flush)  # ahead of the series it brings up to date
        self.events = Counter(
            "apiserver_audit_event",
            "[ALPHA] Counter of audit events generated and sent to the audit backend.",
            registry=registry,
        )
        self.levels = Counter(
            "apiserver_audit_level",
            "[ALPHA] Counter of policy levels for audit events (1 per request).",
            ["level"],
            registry=registry,
        )
        self.errors = Counter(
            "apiserver_audit_error",
            "[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin "
            "affected by the error.",
            ["plugin"],
            registry=registry,
        )
        self.events_sent = DeferredCount(self.events)
        """Moved per event as a plain integer, added to the counter by a scrape (`deferred_counts`)."""
        self.levels_seen = [DeferredCount(self.levels.labels(level.wire)) for level in Level]
        """By level (a Level is its index): the request path adds to `value`."""
        self.log_errors = self.errors.labels("log")

    def error(self, plugin: str, count: int) -> None:
        """`count` events the backend `plugin` (log, webhook, buffered) failed to deliver."""
        self.errors.labels(plugin).inc(count)

    def _flush(self) -> None:
        self.events_sent.flush()
        for count in self.levels_seen:
            count.flush()
