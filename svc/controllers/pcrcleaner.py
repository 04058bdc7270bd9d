"""The podcertificaterequest-cleaner controller: PodCertificateRequests older than 15 minutes are deleted.

Upstream `pkg/controller/certificates/cleaner` (`PCRCleanerController`): every 5 minutes each request
created more than 15 minutes ago is deleted, whatever its state, since every issuance flow is expected
to end well within that; the delete carries the request's UID as a precondition, so a newer request
of the same name is never taken with it. Upstream starts it only with the PodCertificateRequest gate
(beta, off by default), the gate that also serves the API (certificates v1beta1).
"""

from __future__ import annotations

import logging

from svc.client.aio import ApiError, resource_path
from svc.client.workers import every
from svc.controllers.context import ControllerContext
from svc.controllers.node_health import parse_time

NAME = "podcertificaterequest-cleaner-controller"
GATE = "PodCertificateRequest"
THRESHOLD = 15 * 60.0
POLLING_INTERVAL = 5 * 60.0
log = logging.getLogger(__name__)


class PCRCleanerController:
    def __init__(self, context: ControllerContext) -> None:
        self.context = context
        self.group = context.profile.group("certificates.k8s.io")
        self.requests = context.informers.informer("certificates.k8s.io", "v1beta1", "podcertificaterequests")

    async def run(self) -> None:
        await every(self.context.clock, POLLING_INTERVAL, self.clean)

    async def clean(self) -> None:
        now = self.context.clock.wall()
        for request in self.requests.list():
            metadata = request["metadata"]
            if now < parse_time(metadata["creationTimestamp"]) + THRESHOLD:
                continue
            path = resource_path(
                self.group, "v1beta1", "podcertificaterequests", namespace=metadata["namespace"], name=metadata["name"]
            )
            try:
                await self.context.client.delete(path, {"preconditions": {"uid": metadata["uid"]}})
            except (ApiError, OSError) as error:
                if not isinstance(error, ApiError) or error.reason != "NotFound":
                    log.warning("%s: deleting %s/%s: %s", NAME, metadata["namespace"], metadata["name"], error)
