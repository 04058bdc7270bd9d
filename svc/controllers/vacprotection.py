"""The volumeattributesclass-protection controller: a VolumeAttributesClass in use is not removed.

Upstream `pkg/controller/volume/vacprotection`: every class carries the `kubernetes.io/vac-protection`
finalizer (profile spelling); a deleted class keeps it while a PersistentVolume names it
(`spec.volumeAttributesClassName`) or a claim does (`spec.volumeAttributesClassName`,
`status.currentVolumeAttributesClassName` or `status.modifyVolumeStatus.targetVolumeAttributesClassName`).
Like upstream it trusts its caches, so a claim created in the same instant as the deletion may lose
the race; a claim or volume that stops naming a class re-queues that class.
"""

from __future__ import annotations

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import protection
from svc.controllers.context import ControllerContext

NAME = "volumeattributesclass-protection-controller"
Obj = protection.Obj


def claim_classes(claim: Obj) -> set[str]:
    """The classes a claim names: the one asked for, the one in effect and the one being moved to."""
    spec = claim.get("spec") or {}
    status = claim.get("status") or {}
    modify = status.get("modifyVolumeStatus") or {}
    names = {
        spec.get("volumeAttributesClassName"),
        status.get("currentVolumeAttributesClassName"),
        modify.get("targetVolumeAttributesClassName"),
    }
    return {name for name in names if name}


def volume_classes(volume: Obj) -> set[str]:
    name = (volume.get("spec") or {}).get("volumeAttributesClassName")
    return {name} if name else set()


class VACProtectionController:
    def __init__(self, context: ControllerContext, *, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.finalizer = context.profile.label("kubernetes.io/vac-protection")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue("vacprotection", clock=context.clock)
        self.classes = context.informers.informer("storage.k8s.io", "v1", "volumeattributesclasses")
        self.claims = context.informers.informer("", "v1", "persistentvolumeclaims")
        self.volumes = context.informers.informer("", "v1", "persistentvolumes")
        self.classes.add_handler(
            Handler(on_add=self._class_changed, on_update=lambda _o, new: self._class_changed(new))
        )
        for informer, names in ((self.claims, claim_classes), (self.volumes, volume_classes)):
            informer.add_handler(
                Handler(
                    on_update=lambda old, new, names=names: self._queue(names(old) - names(new)),
                    on_delete=lambda obj, names=names: self._queue(names(obj)),
                )
            )

    def _class_changed(self, vac: Obj) -> None:
        if protection.needs_finalizer(vac, self.finalizer) or protection.is_deletion_candidate(vac, self.finalizer):
            self.queue.add(vac["metadata"]["name"])

    def _queue(self, names: set[str]) -> None:
        for name in names:
            self.queue.add(name)

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    def in_use(self, name: str) -> bool:
        return any(name in volume_classes(pv) for pv in self.volumes.list()) or any(
            name in claim_classes(pvc) for pvc in self.claims.list()
        )

    async def sync(self, name: str) -> None:
        vac = self.classes.get(name)
        if vac is None:
            return
        if protection.is_deletion_candidate(vac, self.finalizer) and not self.in_use(name):
            await self._write(protection.without_finalizer(vac, self.finalizer))
        elif protection.needs_finalizer(vac, self.finalizer):
            await self._write(protection.with_finalizer(vac, self.finalizer))

    async def _write(self, vac: Obj) -> None:
        path = resource_path(
            self.context.profile.group("storage.k8s.io"), "v1", "volumeattributesclasses", name=vac["metadata"]["name"]
        )
        try:
            await self.context.client.update(path, vac)
        except ApiError as error:
            if error.reason != "NotFound":
                raise
