"""What the server holds when auditing is on: the policy and the backend events go to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from svc.apiserver.audit.log_backend import LogBackend
from svc.apiserver.audit.metrics import AuditMetrics
from svc.apiserver.audit.options import AuditOptions
from svc.apiserver.audit.policy import Policy


@dataclass
class Auditor:
    policy: Policy
    backend: LogBackend
    sent: Callable[[], None] = lambda: None
    """Counts an event handed to the backend."""

    def shutdown(self) -> None:
        self.backend.shutdown()


def build_audit(options: AuditOptions, metrics: AuditMetrics | None = None) -> Auditor | None:
    """The configured auditor, or None when the policy or the log path is not given (no auditing)."""
    if options.policy is None or not options.log_path:
        return None
    backend = LogBackend(
        options.log_path,
        options.log_format,
        options.log_max_size,
        options.log_max_backups,
        options.log_max_age,
        on_error=metrics.log_errors.inc if metrics is not None else None,
    )
    if metrics is None:
        return Auditor(options.policy, backend)
    return Auditor(options.policy, backend, metrics.events.inc)
