"""What the server holds when auditing is on: the policy and the backend events go to."""

from __future__ import annotations

from dataclasses import dataclass

from svc.apiserver.audit.log_backend import LogBackend
from svc.apiserver.audit.options import AuditOptions
from svc.apiserver.audit.policy import Policy


@dataclass
class Auditor:
    policy: Policy
    backend: LogBackend

    def shutdown(self) -> None:
        self.backend.shutdown()


def build_audit(options: AuditOptions) -> Auditor | None:
    """The configured auditor, or None when the policy or the log path is not given (no auditing)."""
    if options.policy is None or not options.log_path:
        return None
    backend = LogBackend(
        options.log_path, options.log_format, options.log_max_size, options.log_max_backups, options.log_max_age
    )
    return Auditor(options.policy, backend)
