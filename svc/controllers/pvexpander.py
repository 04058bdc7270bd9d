"""The persistentvolume-expander controller: a bound claim asking for more storage is handed to its resizer.

Upstream `pkg/controller/volume/expand`: a claim is looked at when its requested storage exceeds its
`status.capacity` while bound to a volume whose `claimRef` names it. The controller manager expands
in-tree only for the few plugins it still carries (none here: every volume is resized by an external
resizer such as a CSI driver's `external-resizer`, which sets the `Resizing` and
`FileSystemResizePending` conditions and the new capacity). So the claim gets upstream's
`ExternalExpanding` Warning event, "waiting for an external controller to expand this PVC", as upstream
records when no in-tree plugin can expand the volume, and is not retried.
"""

from __future__ import annotations

from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.events import WARNING
from svc.client.informer import Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.volume_matching import storage_of

NAME = "persistentvolume-expander-controller"
COMPONENT = "volume_expand"
MESSAGE = "waiting for an external controller to expand this PVC"
Obj = dict[str, Any]


def needs_expansion(claim: Obj) -> bool:
    spec, status = claim.get("spec") or {}, claim.get("status") or {}
    if not spec.get("volumeName") or status.get("phase") != "Bound":
        return False
    return storage_of((spec.get("resources") or {}).get("requests")) > storage_of(status.get("capacity"))


class PersistentVolumeExpander:
    def __init__(self, context: ControllerContext, *, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.events = context.recorder(COMPONENT)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.claims = context.informers.informer("", "v1", "persistentvolumeclaims")
        self.claims.add_handler(
            Handler(on_add=self._claim_changed, on_update=lambda _old, claim: self._claim_changed(claim))
        )

    def _claim_changed(self, claim: Obj) -> None:
        if needs_expansion(claim):
            self.queue.add(key_of(claim))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        claim = self.claims.get(key)
        if claim is None or not needs_expansion(claim):
            return
        try:
            volume = await self.context.client.get(
                resource_path("", "v1", "persistentvolumes", name=claim["spec"]["volumeName"])
            )
        except ApiError as error:
            if error.reason == "NotFound":
                return
            raise
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        metadata = claim["metadata"]
        if ref.get("namespace") != metadata.get("namespace") or ref.get("name") != metadata.get("name"):
            return
        await self.events.event(claim, "PersistentVolumeClaim", "v1", WARNING, "ExternalExpanding", MESSAGE)
