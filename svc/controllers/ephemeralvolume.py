"""The ephemeral-volume controller: a pod's generic ephemeral volume gets its PersistentVolumeClaim.

Upstream `pkg/controller/volume/ephemeral`: for every `ephemeral` volume of a pod that is not being
deleted, a claim named `<pod>-<volume>` is created from the volume's `volumeClaimTemplate` (its labels,
annotations and spec) with the pod as controlling owner, so the garbage collector removes it with the
pod. A claim of that name the pod does not own is never taken over, and a claim the API server refuses
is not made: either way the pod gets upstream's `FailedBinding` Warning event naming the volume, and
the sync fails and is retried with backoff.
"""

from __future__ import annotations

from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.events import WARNING
from svc.client.informer import Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.controller_ref import controller_of, owner_reference

NAME = "ephemeral-volume-controller"
COMPONENT = "ephemeral_volume"

Obj = dict[str, Any]


def claim_name(pod: Obj, volume: Obj) -> str:
    return f"{pod['metadata']['name']}-{volume['name']}"


def ephemeral_volumes(pod: Obj) -> list[Obj]:
    return [volume for volume in (pod.get("spec") or {}).get("volumes") or [] if volume.get("ephemeral")]


def is_for_pod(pod: Obj, claim: Obj) -> bool:
    owner = controller_of(claim)
    return owner is not None and owner.get("uid") == pod["metadata"].get("uid")


class VolumeError(Exception):
    """Why an ephemeral volume of a pod has no claim of its own, in upstream's words."""


class NotForPod(VolumeError):
    """A claim of the ephemeral volume's name exists and the pod does not own it."""


class EphemeralVolumeController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.events = context.recorder(COMPONENT)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.pods = context.informers.informer("", "v1", "pods")
        self.claims = context.informers.informer("", "v1", "persistentvolumeclaims")
        # A pod's volumes never change, so only a new pod is looked at (as upstream): a pod that failed
        # comes back through the queue's backoff, not on each status update.
        self.pods.add_handler(Handler(on_add=self._pod_added))
        self.claims.add_handler(Handler(on_delete=self._claim_deleted))

    def _pod_added(self, pod: Obj) -> None:
        if ephemeral_volumes(pod) and not pod["metadata"].get("deletionTimestamp"):
            self.queue.add(key_of(pod))

    def _claim_deleted(self, claim: Obj) -> None:
        owner = controller_of(claim)
        if owner is not None and owner.get("kind") == "Pod":
            self.queue.add(f"{claim['metadata'].get('namespace', '')}/{owner.get('name')}")

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        pod = self.pods.get(key)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return
        for volume in ephemeral_volumes(pod):
            try:
                await self._ensure_claim(pod, volume)
            except VolumeError as error:
                message = f"ephemeral volume {volume.get('name')}: {error}"
                await self.events.event(pod, "Pod", "v1", WARNING, "FailedBinding", message)
                raise

    async def _ensure_claim(self, pod: Obj, volume: Obj) -> None:
        namespace = pod["metadata"].get("namespace", "")
        name = claim_name(pod, volume)
        existing = self.claims.get(f"{namespace}/{name}")
        if existing is not None:
            if not is_for_pod(pod, existing):
                raise NotForPod(
                    f"PVC {namespace}/{name} was not created for pod {namespace}/{pod['metadata']['name']} "
                    "(pod is not owner)"
                )
            return
        try:
            await self._create(pod, name, volume["ephemeral"].get("volumeClaimTemplate") or {})
        except ApiError as error:
            raise VolumeError(f"create PVC {name}: {error.message}") from error

    async def _create(self, pod: Obj, name: str, template: Obj) -> None:
        template_meta = template.get("metadata") or {}
        metadata: Obj = {"name": name, "ownerReferences": [owner_reference(pod, "v1", "Pod")]}
        for field in ("labels", "annotations"):
            if template_meta.get(field):
                metadata[field] = template_meta[field]
        body = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": metadata, "spec": template.get("spec")}
        path = resource_path("", "v1", "persistentvolumeclaims", namespace=pod["metadata"].get("namespace", ""))
        try:
            await self.context.client.create(path, body)
        except ApiError as error:
            if error.reason != "AlreadyExists":
                raise
