"""The certificatesigningrequest-cleaner controller: finished or abandoned requests are deleted.

Upstream `pkg/controller/certificates/cleaner`: every hour each request is checked, and deleted when
its issued certificate has expired, or an hour after it was approved (with a certificate), denied or
failed, or a day after creation while still pending.
"""

from __future__ import annotations

import base64
import logging

from cryptography import x509

from svc.client.aio import ApiError
from svc.client.workers import every
from svc.controllers import csr_rules
from svc.controllers.context import ControllerContext
from svc.controllers.csrsigning import GROUP, csr_path
from svc.controllers.node_health import parse_time

NAME = "certificatesigningrequest-cleaner-controller"
POLLING_INTERVAL = 3600.0
APPROVED_EXPIRATION = 3600.0
DENIED_EXPIRATION = 3600.0
FAILED_EXPIRATION = 3600.0
PENDING_EXPIRATION = 24 * 3600.0
log = logging.getLogger(__name__)

Obj = csr_rules.Obj


def _older_than(stamp: str | None, seconds: float, now: float) -> bool:
    return bool(stamp) and parse_time(stamp) + seconds < now  # type: ignore[arg-type]


def _condition_time(condition: Obj) -> str | None:
    return condition.get("lastUpdateTime") or condition.get("lastTransitionTime")


def is_expired_or_stale(csr: Obj, now: float) -> bool:
    status = csr.get("status") or {}
    certificate = status.get("certificate")
    if certificate:
        try:
            issued = x509.load_pem_x509_certificate(base64.b64decode(certificate))
            if issued.not_valid_after_utc.timestamp() < now:
                return True
        except ValueError:
            pass
    approved = csr_rules.condition(csr, "Approved")
    if approved and certificate and _older_than(_condition_time(approved), APPROVED_EXPIRATION, now):
        return True
    denied = csr_rules.condition(csr, "Denied")
    if denied and _older_than(_condition_time(denied), DENIED_EXPIRATION, now):
        return True
    failed = csr_rules.condition(csr, "Failed")
    if failed and _older_than(_condition_time(failed), FAILED_EXPIRATION, now):
        return True
    pending = not (approved or denied or failed)
    return pending and _older_than(csr["metadata"].get("creationTimestamp"), PENDING_EXPIRATION, now)


class CSRCleanerController:
    def __init__(self, context: ControllerContext) -> None:
        self.context = context
        self.requests = context.informers.informer(GROUP, "v1", "certificatesigningrequests")

    async def run(self) -> None:
        await every(self.context.clock, POLLING_INTERVAL, self.clean)

    async def clean(self) -> None:
        now = self.context.clock.wall()
        for csr in self.requests.list():
            if not is_expired_or_stale(csr, now):
                continue
            try:
                await self.context.client.delete(csr_path(self.context, csr["metadata"]["name"]))
            except (ApiError, OSError) as error:
                if not isinstance(error, ApiError) or error.reason != "NotFound":
                    log.warning("%s: deleting %s: %s", NAME, csr["metadata"]["name"], error)
