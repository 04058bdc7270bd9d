"""The persistentvolume-protection controller: a PersistentVolume bound to a claim is not removed.

Upstream `pkg/controller/volume/pvprotection`: every PV carries the `kubernetes.io/pv-protection`
finalizer (profile spelling); when a PV is deleted the finalizer is released once the PV is no
longer `Bound` (the binder moves it to Released when its claim goes).
"""

from __future__ import annotations

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import protection
from svc.controllers.context import ControllerContext

NAME = "persistentvolume-protection-controller"


class PVProtectionController:
    def __init__(self, context: ControllerContext, *, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.finalizer = context.profile.label("kubernetes.io/pv-protection")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.volumes = context.informers.informer("", "v1", "persistentvolumes")
        self.volumes.add_handler(Handler(on_add=self._changed, on_update=lambda _old, pv: self._changed(pv)))

    def _changed(self, pv: protection.Obj) -> None:
        if protection.needs_finalizer(pv, self.finalizer) or protection.is_deletion_candidate(pv, self.finalizer):
            self.queue.add(pv["metadata"]["name"])

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, name: str) -> None:
        pv = self.volumes.get(name)
        if pv is None:
            return
        if protection.is_deletion_candidate(pv, self.finalizer):
            if (pv.get("status") or {}).get("phase") == "Bound":
                return
            await self._write(protection.without_finalizer(pv, self.finalizer))
        elif protection.needs_finalizer(pv, self.finalizer):
            await self._write(protection.with_finalizer(pv, self.finalizer))

    async def _write(self, pv: protection.Obj) -> None:
        try:
            await self.context.client.update(
                resource_path("", "v1", "persistentvolumes", name=pv["metadata"]["name"]), pv
            )
        except ApiError as error:
            if error.reason != "NotFound":
                raise
