"""What the server holds when auditing is on: the policy and the backends events go to (the log, the
webhook, or both, as upstream's union backend), and upstream's audit counters."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry

from svc.apiserver.audit import event as events
from svc.apiserver.audit.event import PendingEvent
from svc.apiserver.audit.log_backend import LogBackend
from svc.apiserver.audit.metrics import AuditMetrics
from svc.apiserver.audit.options import AuditOptions
from svc.apiserver.audit.policy import Policy
from svc.apiserver.audit.webhook_backend import WebhookBackend


@dataclass
class Auditor:
    policy: Policy
    log: LogBackend | None = None
    webhook: WebhookBackend | None = None
    metrics: AuditMetrics = field(default_factory=lambda: AuditMetrics(CollectorRegistry()))
    inline: LogBackend | None = field(init=False)
    """The log when it is the only backend and takes a request's events from the filter itself
    (`LogBackend.hold`, `complete`): the usual production setup, served by one short path."""

    def __post_init__(self) -> None:
        self.inline = self.log if self.webhook is None and self.log is not None and self.log.inline else None

    @property
    def strict(self) -> bool:
        """Whether a failed first event fails the request (the webhook's `blocking-strict` mode)."""
        return self.webhook is not None and self.webhook.mode == "blocking-strict"

    def emit(self, pending: PendingEvent, stage: str, annotations: dict[str, str]) -> Awaitable[bool] | None:
        """`process` the request's event at `stage`: the log encodes its line from the request as it
        stands, the webhook takes the staged event (it sends later)."""
        self.metrics.events_sent.value += 1
        if self.log is not None:
            self.log.process_stage(pending, stage, annotations)
        return self.webhook.process(events.stage(pending, stage, annotations)) if self.webhook is not None else None

    async def close(self) -> None:
        if self.webhook is not None:
            await self.webhook.close()
        if self.log is not None:
            await self.log.close()


def build_audit(options: AuditOptions, metrics: AuditMetrics | None = None) -> Auditor | None:
    """The configured auditor, or None without a policy or a backend (no auditing)."""
    if not options.enabled:
        return None
    assert options.policy is not None
    if metrics is None:
        metrics = AuditMetrics(CollectorRegistry())
    error = metrics.error
    log = None
    if options.log_path:
        log = LogBackend(
            options.log_path,
            options.log_format,
            options.log_max_size,
            options.log_max_backups,
            options.log_max_age,
            compress=options.log_compress,
            batch=options.log_batch if options.log_mode == "batch" else None,
            truncate=options.log_truncate,
            on_drop=lambda count: error("buffered", count),
            on_error=lambda: error("log", 1),
        )
    webhook = WebhookBackend(options, error) if options.webhook_config is not None else None
    return Auditor(options.policy, log, webhook, metrics)
