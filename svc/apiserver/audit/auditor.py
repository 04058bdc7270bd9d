"""What the server holds when auditing is on: the policy and the backends events go to (the log, the
webhook, or both, as upstream's union backend), and upstream's audit counters."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, Counter

from svc.apiserver.audit.log_backend import LogBackend
from svc.apiserver.audit.options import AuditOptions
from svc.apiserver.audit.policy import Policy
from svc.apiserver.audit.webhook_backend import WebhookBackend


class AuditMetrics:
    def __init__(self, registry: CollectorRegistry | None) -> None:
        self.events = Counter(
            "apiserver_audit_event",
            "Counter of audit events generated and sent to the audit backend.",
            registry=registry,
        )
        self.errors = Counter(
            "apiserver_audit_error",
            "Counter of audit events that failed to be audited properly. "
            "Plugin identifies the plugin affected by the error.",
            ["plugin"],
            registry=registry,
        )

    def error(self, plugin: str, count: int) -> None:
        self.errors.labels(plugin).inc(count)


@dataclass
class Auditor:
    policy: Policy
    log: LogBackend | None = None
    webhook: WebhookBackend | None = None
    metrics: AuditMetrics = field(default_factory=lambda: AuditMetrics(None))

    @property
    def strict(self) -> bool:
        """Whether a failed first event fails the request (the webhook's `blocking-strict` mode)."""
        return self.webhook is not None and self.webhook.mode == "blocking-strict"

    def process(self, event: dict[str, Any]) -> Awaitable[bool] | None:
        """Hand the event to every backend; the webhook's delivery when the request must wait for it."""
        self.metrics.events.inc()
        if self.log is not None:
            self.log.process(event)
        return self.webhook.process(event) if self.webhook is not None else None

    async def close(self) -> None:
        if self.webhook is not None:
            await self.webhook.close()
        if self.log is not None:
            await asyncio.to_thread(self.log.shutdown)


def build_audit(options: AuditOptions, registry: CollectorRegistry | None = None) -> Auditor | None:
    """The configured auditor, or None without a policy or a backend (no auditing)."""
    if not options.enabled:
        return None
    assert options.policy is not None
    metrics = AuditMetrics(registry)
    log = None
    if options.log_path:
        log = LogBackend(
            options.log_path,
            options.log_format,
            options.log_max_size,
            options.log_max_backups,
            options.log_max_age,
            compress=options.log_compress,
            buffer_size=options.log_batch.buffer_size if options.log_mode == "batch" else 0,
            truncate=options.log_truncate,
            on_drop=lambda count: metrics.error("buffered", count),
        )
    webhook = WebhookBackend(options, metrics.error) if options.webhook_config is not None else None
    return Auditor(options.policy, log, webhook, metrics)
