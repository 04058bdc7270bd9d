"""The persistentvolumeclaim-protection controller: a claim in use by a pod is not removed.

Upstream `pkg/controller/volume/pvcprotection`: every claim carries the `kubernetes.io/pvc-protection`
finalizer (profile spelling); a deleted claim keeps it while a scheduled pod references the claim
(through `persistentVolumeClaim`, or as the claim of its generic ephemeral volume unless the pod is
already shut down). The cache is asked first; when it finds no user, a live list of the namespace's
pods decides, since a pod may not have reached the cache yet.
"""

from __future__ import annotations

from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import protection
from svc.controllers.context import ControllerContext
from svc.controllers.ephemeralvolume import claim_name, is_for_pod

NAME = "persistentvolumeclaim-protection-controller"

Obj = protection.Obj


def _not_running(statuses: list[Obj] | None) -> bool:
    return all("terminated" in (s.get("state") or {}) or "waiting" in (s.get("state") or {}) for s in statuses or ())


def pod_terminated(pod: Obj) -> bool:
    """Upstream's `IsPodTerminated`: finished, or being deleted with no container running."""
    status = pod.get("status") or {}
    if status.get("phase") in ("Succeeded", "Failed"):
        return True
    return bool(pod["metadata"].get("deletionTimestamp")) and all(
        _not_running(status.get(field))
        for field in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses")
    )


def pod_shut_down(pod: Obj) -> bool:
    """Done with by the node or force-deleted: being deleted with a zero grace period."""
    metadata = pod["metadata"]
    return bool(metadata.get("deletionTimestamp")) and metadata.get("deletionGracePeriodSeconds") == 0


def pod_uses_claim(pod: Obj, claim: Obj) -> bool:
    if not (pod.get("spec") or {}).get("nodeName"):
        return False
    name = claim["metadata"]["name"]
    for volume in pod["spec"].get("volumes") or ():
        if (volume.get("persistentVolumeClaim") or {}).get("claimName") == name:
            return True
        if (
            volume.get("ephemeral")
            and not pod_shut_down(pod)
            and claim_name(pod, volume) == name
            and is_for_pod(pod, claim)
        ):
            return True
    return False


class PVCProtectionController:
    def __init__(self, context: ControllerContext, *, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.finalizer = context.profile.label("kubernetes.io/pvc-protection")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.claims = context.informers.informer("", "v1", "persistentvolumeclaims")
        self.pods = context.informers.informer("", "v1", "pods")
        self.claims.add_handler(Handler(on_add=self._claim_changed, on_update=lambda _old, c: self._claim_changed(c)))
        self.pods.add_handler(
            Handler(
                on_add=lambda pod: self._queue_claims(pod, deleted=False),
                on_update=self._pod_updated,
                on_delete=lambda pod: self._queue_claims(pod, deleted=True),
            )
        )

    def _claim_changed(self, claim: Obj) -> None:
        if protection.needs_finalizer(claim, self.finalizer) or protection.is_deletion_candidate(claim, self.finalizer):
            self.queue.add(key_of(claim))

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        self._queue_claims(new, deleted=False)
        if old["metadata"].get("uid") != new["metadata"].get("uid"):
            self._queue_claims(old, deleted=True)

    def _queue_claims(self, pod: Obj, *, deleted: bool) -> None:
        """Only a pod that can no longer hold a claim can release one."""
        if not deleted and not pod_terminated(pod) and (pod.get("spec") or {}).get("nodeName"):
            return
        namespace = pod["metadata"].get("namespace", "")
        for volume in (pod.get("spec") or {}).get("volumes") or ():
            if volume.get("persistentVolumeClaim"):
                self.queue.add(f"{namespace}/{volume['persistentVolumeClaim'].get('claimName')}")
            elif volume.get("ephemeral"):
                self.queue.add(f"{namespace}/{claim_name(pod, volume)}")

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        claim = self.claims.get(key)
        if claim is None:
            return
        if protection.is_deletion_candidate(claim, self.finalizer):
            if not await self._in_use(claim):
                await self._write(protection.without_finalizer(claim, self.finalizer))
        elif protection.needs_finalizer(claim, self.finalizer):
            await self._write(protection.with_finalizer(claim, self.finalizer))

    async def _in_use(self, claim: Obj) -> bool:
        namespace = claim["metadata"].get("namespace", "")
        if any(pod_uses_claim(pod, claim) for pod in self.pods.by_index(NAMESPACE_INDEX, namespace)):
            return True
        live = await self.context.client.get(resource_path("", "v1", "pods", namespace=namespace))
        return any(pod_uses_claim(pod, claim) for pod in live.get("items") or ())

    async def _write(self, claim: Obj) -> None:
        metadata = claim["metadata"]
        path = resource_path("", "v1", "persistentvolumeclaims", namespace=metadata["namespace"], name=metadata["name"])
        try:
            await self.context.client.update(path, claim)
        except ApiError as error:
            if error.reason != "NotFound":
                raise
