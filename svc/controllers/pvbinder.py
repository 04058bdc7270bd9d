"""The persistentvolume-binder controller: claims bound to volumes, released volumes reclaimed.

Upstream `pkg/controller/volume/persistentvolume/pv_controller.go`, with two queues (claims and
volumes), one worker each because a claim sync is not reentrant (two at once could bind one volume
twice). A claim is bound by writing the volume first (`claimRef`, `bound-by-controller`, phase
Bound) and then the claim (`volumeName`, `bind-completed`, status Bound with the volume's access
modes and capacity); a failure half way is finished by the next sync of either object, which is why
every step checks what is already written. Writes are remembered until the informer catches up, so
a sync never acts on a cache older than its own last write.

Without a match the claim stays Pending: with `WaitForFirstConsumer` an event says it waits for a
pod (the scheduler binds it then); with a class, the class's provisioner is asked through the
`storage-provisioner` annotations (every provisioner is external here: no in-tree volume plugins);
with no class, an event says nothing is available. A volume whose claim is gone is Released and its
reclaim policy applied: Retain keeps it; Delete leaves it to its external provisioner or CSI driver
and, for a volume no plugin here can delete, marks it Failed with upstream's event; Recycle runs the
NFS or hostPath recycler pod (`pvrecycler.py`) in the background, one at a time per volume, and fails
the same way for a volume of another kind.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.events import NORMAL, WARNING
from svc.client.informer import NAMESPACE_INDEX, Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import volume_matching as matching
from svc.controllers.context import ControllerContext
from svc.controllers.pvcprotection import pod_terminated
from svc.controllers.pvrecycler import Plugin, RecycleError, Recycler

NAME = "persistentvolume-binder-controller"
COMPONENT = "persistentvolume-controller"
log = logging.getLogger(__name__)
Obj = dict[str, Any]


def _rv(obj: Obj) -> int:
    try:
        return int(obj["metadata"].get("resourceVersion") or 0)
    except ValueError:
        return 0


def _status(obj: Obj) -> Obj:
    return obj.get("status") or {}


class PersistentVolumeBinder:
    def __init__(
        self,
        context: ControllerContext,
        *,
        sync_period: float = 15.0,
        dynamic_provisioning: bool = True,
        recycler_plugins: list[Plugin] | None = None,
    ) -> None:
        self.context = context
        self.recycler = Recycler(context.client, recycler_plugins or [])
        self._recycling: dict[str, asyncio.Task[None]] = {}
        self.sync_period = sync_period
        self.dynamic_provisioning = dynamic_provisioning
        self.events = context.recorder(COMPONENT)
        label = context.profile.label
        self.bind_completed = label("pv.kubernetes.io/bind-completed")
        self.bound_by_controller = label("pv.kubernetes.io/bound-by-controller")
        self.provisioned_by = label("pv.kubernetes.io/provisioned-by")
        self.selected_node = label("volume.kubernetes.io/selected-node")
        self.provisioner_keys = (
            label("volume.beta.kubernetes.io/storage-provisioner"),
            label("volume.kubernetes.io/storage-provisioner"),
        )
        self.default_class_keys = (
            label("storageclass.kubernetes.io/is-default-class"),
            label("storageclass.beta.kubernetes.io/is-default-class"),
        )
        self.internal_prefix = label("kubernetes.io/x")[:-1]
        self.claim_queue: RateLimitingQueue[str] = RateLimitingQueue(f"{NAME}-claims", clock=context.clock)
        self.volume_queue: RateLimitingQueue[str] = RateLimitingQueue(f"{NAME}-volumes", clock=context.clock)
        self.volumes = context.informers.informer("", "v1", "persistentvolumes")
        self.claims = context.informers.informer("", "v1", "persistentvolumeclaims")
        self.classes = context.informers.informer("storage.k8s.io", "v1", "storageclasses")
        self.pods = context.informers.informer("", "v1", "pods")
        self._written: dict[str, Obj] = {}
        self.volumes.add_handler(
            Handler(
                on_add=lambda pv: self.volume_queue.add(key_of(pv)),
                on_update=lambda _old, pv: self.volume_queue.add(key_of(pv)),
                on_delete=self._volume_deleted,
            )
        )
        self.claims.add_handler(
            Handler(
                on_add=lambda pvc: self.claim_queue.add(key_of(pvc)),
                on_update=lambda _old, pvc: self.claim_queue.add(key_of(pvc)),
                on_delete=self._claim_deleted,
            )
        )

    def _volume_deleted(self, volume: Obj) -> None:
        self._written.pop(f"pv:{key_of(volume)}", None)
        ref = (volume.get("spec") or {}).get("claimRef")
        if ref:
            self.claim_queue.add(f"{ref.get('namespace')}/{ref.get('name')}")

    def _claim_deleted(self, claim: Obj) -> None:
        self._written.pop(f"pvc:{key_of(claim)}", None)
        if (claim.get("spec") or {}).get("volumeName"):
            self.volume_queue.add(claim["spec"]["volumeName"])

    async def run(self) -> None:
        try:
            await asyncio.gather(
                run_workers(self.claim_queue, self.sync_claim, workers=1, name=NAME),
                run_workers(self.volume_queue, self.sync_volume, workers=1, name=NAME),
                self._resync(),
            )
        finally:
            for task in self._recycling.values():
                task.cancel()
            await asyncio.gather(*self._recycling.values(), return_exceptions=True)

    async def _resync(self) -> None:
        """Every sync period every claim and volume is looked at again (upstream's `resync`)."""
        while True:
            await self.context.clock.sleep(self.sync_period)
            for claim in self.claims.list():
                self.claim_queue.add(key_of(claim))
            for volume in self.volumes.list():
                self.volume_queue.add(key_of(volume))

    # -- the freshest copy: the cache, or this controller's own newer write ---------------------

    def _latest(self, kind: str, cached: Obj | None, key: str) -> Obj | None:
        written = self._written.get(f"{kind}:{key}")
        if cached is None:
            return None
        if written is not None and written["metadata"].get("uid") == cached["metadata"].get("uid"):
            if _rv(written) > _rv(cached):
                return written
            del self._written[f"{kind}:{key}"]
        return cached

    def volume(self, name: str) -> Obj | None:
        return self._latest("pv", self.volumes.get(name), name)

    def claim(self, key: str) -> Obj | None:
        return self._latest("pvc", self.claims.get(key), key)

    def _remember(self, kind: str, obj: Obj) -> Obj:
        if obj.get("metadata"):
            self._written[f"{kind}:{key_of(obj)}"] = obj
        return obj

    # -- claims ---------------------------------------------------------------------------------

    async def sync_claim(self, key: str) -> None:
        claim = self.claim(key)
        if claim is None:
            return
        if self.bind_completed in (claim["metadata"].get("annotations") or {}):
            await self._sync_bound_claim(claim)
        else:
            await self._sync_unbound_claim(claim)

    async def _sync_unbound_claim(self, claim: Obj) -> None:
        spec = claim.get("spec") or {}
        wanted = spec.get("volumeName")
        if wanted:
            await self._sync_claim_naming_volume(claim, wanted)
            return
        delay = self._delay_binding(claim)
        try:
            volume = matching.best_match(claim, self.volumes_now(), self.context.profile, delay_binding=delay)
        except ValueError as error:
            raise RuntimeError(f'error finding PV for claim "{key_of(claim)}": {error}') from None
        if volume is not None:
            await self.bind(volume, claim)
            return
        if await self._assign_default_class(claim):
            return
        annotations = claim["metadata"].get("annotations") or {}
        if delay and self.selected_node not in annotations:
            await self._wait_for_consumer(claim)
        elif matching.claim_class(claim, self.context.profile):
            await self._provision(claim)
            return
        else:
            message = "no persistent volumes available for this claim and no storage class is set"
            await self._claim_event(claim, NORMAL, "FailedBinding", message)
        await self._update_claim_status(claim, "Pending", None)

    def volumes_now(self) -> list[Obj]:
        return [self._latest("pv", volume, key_of(volume)) or volume for volume in self.volumes.list()]

    async def _sync_claim_naming_volume(self, claim: Obj, name: str) -> None:
        volume = self.volume(name)
        if volume is None:
            await self._update_claim_status(claim, "Pending", None)
            return
        if not (volume.get("spec") or {}).get("claimRef"):
            problem = matching.unsatisfied(volume, claim, self.context.profile)
            if problem:
                await self._claim_event(
                    claim, WARNING, "VolumeMismatch", f'Cannot bind to requested volume "{name}": {problem}'
                )
                await self._update_claim_status(claim, "Pending", None)
            else:
                await self.bind(volume, claim)
            return
        if matching.bound_to_claim(volume, claim):
            await self.bind(volume, claim)
            return
        await self._claim_event(claim, WARNING, "FailedBinding", f'volume "{name}" already bound to a different claim.')
        if self.bound_by_controller in (claim["metadata"].get("annotations") or {}):
            ref = volume["spec"]["claimRef"]
            raise RuntimeError(
                f'invalid binding of claim "{key_of(claim)}" to volume "{name}": volume already claimed by '
                f'"{ref.get("namespace")}/{ref.get("name")}"'
            )
        await self._update_claim_status(claim, "Pending", None)

    async def _sync_bound_claim(self, claim: Obj) -> None:
        name = (claim.get("spec") or {}).get("volumeName")
        if not name:
            message = "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!"
            await self._claim_lost(claim, "ClaimLost", message)
            return
        volume = self.volume(name)
        if volume is None:
            await self._claim_lost(
                claim, "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!"
            )
            return
        ref = (volume.get("spec") or {}).get("claimRef")
        if not ref or ref.get("uid") == claim["metadata"].get("uid"):
            await self.bind(volume, claim)
            return
        await self._claim_lost(
            claim, "ClaimMisbound", "Two claims are bound to the same volume, this one is bound incorrectly"
        )

    async def _claim_lost(self, claim: Obj, reason: str, message: str) -> None:
        """Upstream's `updateClaimStatusWithEvent`: the event only when the phase changes."""
        if _status(claim).get("phase") == "Lost":
            return
        updated = await self._update_claim_status(claim, "Lost", None)
        await self._claim_event(updated, WARNING, reason, message)

    def _delay_binding(self, claim: Obj) -> bool:
        name = matching.claim_class(claim, self.context.profile)
        storage_class = self.classes.get(name) if name else None
        return bool(storage_class) and storage_class.get("volumeBindingMode") == "WaitForFirstConsumer"

    async def _wait_for_consumer(self, claim: Obj) -> None:
        """Upstream's `emitEventForUnboundDelayBindingClaim`: name the unscheduled pods, if any."""
        waiting = sorted(
            pod["metadata"]["name"]
            for pod in self.pods.by_index(NAMESPACE_INDEX, claim["metadata"].get("namespace", ""))
            if _uses_claim(pod, claim["metadata"]["name"])
            and not pod_terminated(pod)
            and not (pod.get("spec") or {}).get("nodeName")
        )
        if not waiting:
            message = "waiting for first consumer to be created before binding"
            await self._claim_event(claim, NORMAL, "WaitForFirstConsumer", message)
        elif len(waiting) == 1:
            await self._claim_event(
                claim, NORMAL, "WaitForPodScheduled", f"waiting for pod {waiting[0]} to be scheduled"
            )
        else:
            message = f"waiting for pods {','.join(waiting)} to be scheduled"
            await self._claim_event(claim, NORMAL, "WaitForPodScheduled", message)

    async def _assign_default_class(self, claim: Obj) -> bool:
        """Upstream's retroactive default class: a claim that names no class gets the default one."""
        beta = self.context.profile.label("volume.beta.kubernetes.io/storage-class")
        if beta in (claim["metadata"].get("annotations") or {}) or "storageClassName" in (claim.get("spec") or {}):
            return False
        defaults = [
            storage_class
            for storage_class in self.classes.list()
            if any(
                (storage_class["metadata"].get("annotations") or {}).get(key) == "true"
                for key in self.default_class_keys
            )
        ]
        if not defaults:
            return False
        newest = max(
            defaults, key=lambda item: (item["metadata"].get("creationTimestamp") or "", item["metadata"]["name"])
        )
        updated = {**claim, "spec": {**claim["spec"], "storageClassName": newest["metadata"]["name"]}}
        await self._write_claim(updated)
        return True

    async def _provision(self, claim: Obj) -> None:
        if not self.dynamic_provisioning:
            return
        name = matching.claim_class(claim, self.context.profile)
        storage_class = self.classes.get(name)
        if storage_class is None:
            group = self.context.profile.group("storage.k8s.io")
            await self._claim_event(claim, WARNING, "ProvisioningFailed", f'storageclass.{group} "{name}" not found')
            return
        provisioner = storage_class.get("provisioner", "")
        if provisioner.startswith(self.internal_prefix):
            await self._claim_event(
                claim, WARNING, "ProvisioningFailed", f"no volume plugin matched name: {provisioner}"
            )
            return
        annotations = claim["metadata"].get("annotations") or {}
        if any(annotations.get(key) != provisioner for key in self.provisioner_keys):
            metadata = {
                **claim["metadata"],
                "annotations": {**annotations, **dict.fromkeys(self.provisioner_keys, provisioner)},
            }
            try:
                claim = await self._write_claim({**claim, "metadata": metadata})
            except ApiError as error:
                await self._claim_event(claim, WARNING, "ProvisioningFailed", f"Error saving claim: {error}")
                raise
        message = (
            f"Waiting for a volume to be created either by the external provisioner '{provisioner}' or manually by "
            "the system administrator. If volume creation is delayed, please verify that the provisioner is running "
            "and correctly registered."
        )
        await self._claim_event(claim, NORMAL, "ExternalProvisioning", message)

    # -- volumes --------------------------------------------------------------------------------

    async def sync_volume(self, name: str) -> None:
        volume = self.volume(name)
        if volume is None:
            return
        ref = (volume.get("spec") or {}).get("claimRef")
        if not ref or not ref.get("uid"):
            await self._update_volume_phase(volume, "Available")
            return
        claim = await self._claim_of(volume, ref)
        if claim is None:
            if _status(volume).get("phase") not in ("Released", "Failed"):
                volume = await self._update_volume_phase(volume, "Released")
            await self._reclaim(volume)
            return
        bound_name = (claim.get("spec") or {}).get("volumeName")
        if not bound_name:
            self.claim_queue.add(key_of(claim))
        elif bound_name == name:
            await self._update_volume_phase(volume, "Bound")
        elif self.provisioned_by in (volume["metadata"].get("annotations") or {}) and _policy(volume) == "Delete":
            if _status(volume).get("phase") not in ("Released", "Failed"):
                volume = await self._update_volume_phase(volume, "Released")
            await self._reclaim(volume)
        else:
            await self._unbind(volume)

    async def _claim_of(self, volume: Obj, ref: Obj) -> Obj | None:
        """The claim the volume is bound to (same uid); asked of the API server too before a volume
        is released, since a claim created by a provisioner may not be cached yet."""
        key = f"{ref.get('namespace')}/{ref.get('name')}"
        claim = self.claim(key)
        if claim is None and _status(volume).get("phase") not in ("Released", "Failed"):
            path = resource_path(
                "", "v1", "persistentvolumeclaims", namespace=ref.get("namespace"), name=ref.get("name")
            )
            try:
                claim = await self.context.client.get(path)
            except ApiError as error:
                if error.reason != "NotFound":
                    raise
        if claim is None or claim["metadata"].get("uid") != ref.get("uid"):
            return None
        return claim

    async def _reclaim(self, volume: Obj) -> None:
        policy = _policy(volume)
        if policy == "Retain" or (volume["metadata"].get("annotations") or {}).get(
            self.context.profile.label("pv.kubernetes.io/migrated-to")
        ):
            return
        if policy == "Recycle":
            await self._recycle(volume)
        elif policy == "Delete":
            await self._delete(volume)
        else:
            await self._fail_volume(
                volume, "VolumeUnknownReclaimPolicy", "Volume has unrecognized PersistentVolumeReclaimPolicy"
            )

    async def _recycle(self, volume: Obj) -> None:
        plugin = self.recycler.plugin_for(volume)
        if plugin is None:
            await self._fail_volume(volume, "VolumeFailedRecycle", "No recycler plugin found for the volume!")
            return
        name = volume["metadata"]["name"]
        running = self._recycling.get(name)
        if running is None or running.done():
            self._recycling[name] = asyncio.create_task(self.recycle_operation(name, plugin), name=f"recycle-{name}")

    async def recycle_operation(self, name: str, plugin: Plugin) -> None:
        """upstream's `recycleVolumeOperation`: on a fresh copy of a volume still released, the pod,
        then the volume Available again or Failed. A request that fails is logged, as upstream's
        operation executor does, and the volume's next sync starts the operation again."""
        try:
            await self._recycle_released(name, plugin)
        except (ApiError, OSError) as error:
            log.warning("%s: recycling volume %s: %s", NAME, name, error)

    async def _recycle_released(self, name: str, plugin: Plugin) -> None:
        try:
            volume = await self.context.client.get(resource_path("", "v1", "persistentvolumes", name=name))
        except ApiError as error:
            if error.reason == "NotFound":
                return
            raise
        ref = (volume.get("spec") or {}).get("claimRef")
        if not ref or await self._claim_of(volume, ref) is not None:
            return
        try:
            await self.recycler.recycle(volume, plugin)
        except RecycleError as error:
            await self._fail_volume(volume, "VolumeFailedRecycle", f"Recycle failed: {error}")
            return
        await self.events.event(volume, "PersistentVolume", "v1", NORMAL, "VolumeRecycled", "Volume recycled")
        await self._unbind(self._remember("pv", volume))

    async def _delete(self, volume: Obj) -> None:
        """Upstream's `deleteVolumeOperation` without in-tree deleters: an external provisioner's or a
        CSI volume is left to its deleter; any other cannot be deleted here and is marked Failed."""
        provisioner = (volume["metadata"].get("annotations") or {}).get(self.provisioned_by, "")
        if provisioner and not provisioner.startswith(self.internal_prefix):
            return
        if not provisioner and (volume.get("spec") or {}).get("csi"):
            return
        name = volume["metadata"]["name"]
        if provisioner:
            message = f"no volume plugin matched name: {provisioner}"
        else:
            message = f'error getting deleter volume plugin for volume "{name}": no deletable volume plugin matched'
        await self._fail_volume(volume, "VolumeFailedDelete", message)

    async def _fail_volume(self, volume: Obj, reason: str, message: str) -> None:
        if _status(volume).get("phase") == "Failed":
            return
        updated = await self._update_volume_phase(volume, "Failed", message)
        await self.events.event(updated, "PersistentVolume", "v1", WARNING, reason, message)

    async def _unbind(self, volume: Obj) -> None:
        """Roll back a binding: the controller's own is removed, a user's pre-binding keeps its name."""
        spec = dict(volume["spec"])
        annotations = dict(volume["metadata"].get("annotations") or {})
        if self.bound_by_controller in annotations:
            spec.pop("claimRef", None)
            del annotations[self.bound_by_controller]
        else:
            spec["claimRef"] = {key: value for key, value in spec["claimRef"].items() if key != "uid"}
        metadata = {**volume["metadata"], "annotations": annotations}
        updated = await self._write_volume({**volume, "metadata": metadata, "spec": spec})
        await self._update_volume_phase(updated, "Available")

    # -- binding --------------------------------------------------------------------------------

    async def bind(self, volume: Obj, claim: Obj) -> None:
        """Volume first, then claim; each step writes only what is missing."""
        volume = await self._bind_volume(volume, claim)
        volume = await self._update_volume_phase(volume, "Bound")
        claim = await self._bind_claim(claim, volume)
        await self._update_claim_status(claim, "Bound", volume)

    async def _bind_volume(self, volume: Obj, claim: Obj) -> Obj:
        metadata = claim["metadata"]
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        set_by_controller = not matching.bound_to_claim(volume, claim)
        dirty = False
        spec = dict(volume["spec"])
        if (ref.get("name"), ref.get("namespace"), ref.get("uid")) != (
            metadata["name"],
            metadata.get("namespace"),
            metadata.get("uid"),
        ):
            spec["claimRef"] = {
                "kind": "PersistentVolumeClaim",
                "namespace": metadata.get("namespace"),
                "name": metadata["name"],
                "uid": metadata.get("uid"),
                "apiVersion": "v1",
                "resourceVersion": metadata.get("resourceVersion"),
            }
            dirty = True
        annotations = dict(volume["metadata"].get("annotations") or {})
        if set_by_controller and self.bound_by_controller not in annotations:
            annotations[self.bound_by_controller] = "yes"
            dirty = True
        if not dirty:
            return volume
        return await self._write_volume(
            {**volume, "metadata": {**volume["metadata"], "annotations": annotations}, "spec": spec}
        )

    async def _bind_claim(self, claim: Obj, volume: Obj) -> Obj:
        annotations = dict(claim["metadata"].get("annotations") or {})
        spec = dict(claim.get("spec") or {})
        dirty = False
        if spec.get("volumeName") != volume["metadata"]["name"]:
            spec["volumeName"] = volume["metadata"]["name"]
            annotations.setdefault(self.bound_by_controller, "yes")
            dirty = True
        if self.bind_completed not in annotations:
            annotations[self.bind_completed] = "yes"
            dirty = True
        if not dirty:
            return claim
        return await self._write_claim(
            {**claim, "metadata": {**claim["metadata"], "annotations": annotations}, "spec": spec}
        )

    # -- writes ---------------------------------------------------------------------------------

    async def _write_volume(self, volume: Obj, *, status: bool = False) -> Obj:
        path = resource_path("", "v1", "persistentvolumes", name=volume["metadata"]["name"])
        return self._remember("pv", await self.context.client.update(path + ("/status" if status else ""), volume))

    async def _write_claim(self, claim: Obj, *, status: bool = False) -> Obj:
        metadata = claim["metadata"]
        path = resource_path("", "v1", "persistentvolumeclaims", namespace=metadata["namespace"], name=metadata["name"])
        return self._remember("pvc", await self.context.client.update(path + ("/status" if status else ""), claim))

    async def _update_volume_phase(self, volume: Obj, phase: str, message: str = "") -> Obj:
        current = _status(volume)
        if current.get("phase") == phase:
            return volume
        status = {**current, "phase": phase}
        if message:
            status["message"] = message
        else:
            status.pop("message", None)
        return await self._write_volume({**volume, "status": status}, status=True)

    async def _update_claim_status(self, claim: Obj, phase: str, volume: Obj | None) -> Obj:
        current = _status(claim)
        status = {**current, "phase": phase}
        if volume is None:
            status.pop("accessModes", None)
            status.pop("capacity", None)
        else:
            volume_spec = volume.get("spec") or {}
            if "storage" not in (volume_spec.get("capacity") or {}):
                raise RuntimeError(f'PersistentVolume "{volume["metadata"]["name"]}" is without a storage capacity')
            status["accessModes"] = volume_spec.get("accessModes")
            if matching.storage_of(current.get("capacity")) != matching.storage_of(volume_spec["capacity"]) or (
                "storage" not in (current.get("capacity") or {})
            ):
                status["capacity"] = volume_spec["capacity"]
        if status == current:
            return claim
        return await self._write_claim({**claim, "status": status}, status=True)

    async def _claim_event(self, claim: Obj, event_type: str, reason: str, message: str) -> None:
        await self.events.event(claim, "PersistentVolumeClaim", "v1", event_type, reason, message)


def _policy(volume: Obj) -> str:
    return (volume.get("spec") or {}).get("persistentVolumeReclaimPolicy") or "Retain"


def _uses_claim(pod: Obj, claim_name: str) -> bool:
    return any(
        (volume.get("persistentVolumeClaim") or {}).get("claimName") == claim_name
        for volume in (pod.get("spec") or {}).get("volumes") or ()
    )
