"""The attach-detach controller: CSI volumes of scheduled pods get VolumeAttachments, and lose them after.

Upstream `pkg/controller/volume/attachdetach`, for the only attachable plugin left in-tree (CSI; a
CSIDriver with `attachRequired: false` opts out). For a node whose agent lets the controller attach
(annotation `volumes.kubernetes.io/controller-managed-attach-detach: "true"`), every persistent volume
of a CSI driver used by a pod placed there (through a bound claim, generic ephemeral ones included)
gets the VolumeAttachment `csi-<sha256(handle + driver + node)>` for the driver's external attacher.
Once the attacher reports it attached, the volume is listed in the node's `status.volumesAttached`
as `kubernetes.io/csi/<driver>^<handle>`. A volume no pod on the node needs any more is detached
(its VolumeAttachment deleted) once the node no longer reports it in `volumesInUse`, or after six
minutes regardless (unless `--disable-force-detach-on-timeout`). A ReadWriteOnce volume attached to
another node is not attached again: the pods get upstream's Multi-Attach event instead.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.events import WARNING
from svc.client.informer import NAMESPACE_INDEX, Handler
from svc.client.workers import RequeueAfter, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.ephemeralvolume import claim_name
from svc.controllers.pvcprotection import pod_terminated

NAME = "persistentvolume-attach-detach-controller"
COMPONENT = "attachdetach-controller"
STORAGE = "storage.k8s.io"
MAX_WAIT_FOR_UNMOUNT = 360.0
IN_USE_RECHECK = 5.0
Obj = dict[str, Any]


@dataclass(frozen=True)
class Wanted:
    driver: str
    handle: str
    volume: str  # the PersistentVolume's name
    multi_attach: bool


def attachment_name(handle: str, driver: str, node: str) -> str:
    return "csi-" + hashlib.sha256(f"{handle}{driver}{node}".encode()).hexdigest()


def _multi_attach_allowed(volume: Obj) -> bool:
    """Upstream's `IsMultiAttachAllowed` for a PersistentVolume."""
    modes = (volume.get("spec") or {}).get("accessModes") or []
    return not modes or any(mode in ("ReadWriteMany", "ReadOnlyMany") for mode in modes)


class AttachDetachController:
    def __init__(
        self, context: ControllerContext, *, reconcile_period: float = 60.0, force_detach: bool = True
    ) -> None:
        self.context = context
        self.reconcile_period = reconcile_period
        self.force_detach = force_detach
        self.managed_key = context.profile.label("volumes.kubernetes.io/controller-managed-attach-detach")
        self.plugin_prefix = f"{context.profile.label_domain}/csi/"
        self.storage = context.profile.group(STORAGE)
        self.events = context.recorder(COMPONENT)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        informer = context.informers.informer
        self.pods = informer("", "v1", "pods")
        self.nodes = informer("", "v1", "nodes")
        self.claims = informer("", "v1", "persistentvolumeclaims")
        self.volumes = informer("", "v1", "persistentvolumes")
        self.drivers = informer(STORAGE, "v1", "csidrivers")
        self.attachments = informer(STORAGE, "v1", "volumeattachments")
        self._unmount_wait: dict[str, float] = {}
        node_of = lambda pod: self._queue_node((pod.get("spec") or {}).get("nodeName"))  # noqa: E731
        self.pods.add_handler(
            Handler(on_add=node_of, on_update=lambda old, new: (node_of(old), node_of(new)), on_delete=node_of)
        )
        by_name = lambda node: self.queue.add(node["metadata"]["name"])  # noqa: E731
        self.nodes.add_handler(Handler(on_add=by_name, on_update=lambda _old, new: by_name(new), on_delete=by_name))
        attached_to = lambda va: self._queue_node((va.get("spec") or {}).get("nodeName"))  # noqa: E731
        self.attachments.add_handler(
            Handler(on_add=attached_to, on_update=lambda _old, new: attached_to(new), on_delete=attached_to)
        )
        self.claims.add_handler(Handler(on_update=lambda _old, claim: self._queue_users(claim)))
        self.volumes.add_handler(Handler(on_update=lambda _old, volume: self._volume_changed(volume)))

    def _queue_node(self, name: str | None) -> None:
        if name:
            self.queue.add(name)

    def _queue_users(self, claim: Obj) -> None:
        namespace, name = claim["metadata"].get("namespace", ""), claim["metadata"]["name"]
        for pod in self.pods.by_index(NAMESPACE_INDEX, namespace):
            if name in self._claim_names(pod):
                self._queue_node((pod.get("spec") or {}).get("nodeName"))

    def _volume_changed(self, volume: Obj) -> None:
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        claim = self.claims.get(f"{ref.get('namespace')}/{ref.get('name')}")
        if claim is not None:
            self._queue_users(claim)

    async def run(self) -> None:
        await asyncio.gather(run_workers(self.queue, self.sync, workers=1, name=NAME), self._reconcile())

    async def _reconcile(self) -> None:
        """Every reconcile period every node is looked at again (upstream's reconciler loop)."""
        while self.reconcile_period > 0:
            await self.context.clock.sleep(self.reconcile_period)
            for node in self.nodes.list():
                self.queue.add(node["metadata"]["name"])

    # -- desired state --------------------------------------------------------------------------

    @staticmethod
    def _claim_names(pod: Obj) -> list[str]:
        names = []
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            if volume.get("persistentVolumeClaim"):
                names.append(volume["persistentVolumeClaim"].get("claimName", ""))
            elif volume.get("ephemeral"):
                names.append(claim_name(pod, volume))
        return names

    def _wanted_for(self, pod: Obj) -> list[Wanted]:
        namespace = pod["metadata"].get("namespace", "")
        found = []
        for name in self._claim_names(pod):
            claim = self.claims.get(f"{namespace}/{name}")
            volume_name = ((claim or {}).get("spec") or {}).get("volumeName")
            volume = self.volumes.get(volume_name) if volume_name else None
            csi = ((volume or {}).get("spec") or {}).get("csi")
            if volume is None or not csi:
                continue
            driver = self.drivers.get(csi.get("driver", ""))
            if driver is not None and (driver.get("spec") or {}).get("attachRequired", True) is False:
                continue
            found.append(
                Wanted(csi.get("driver", ""), csi.get("volumeHandle", ""), volume_name, _multi_attach_allowed(volume))
            )
        return found

    def desired(self, node_name: str) -> dict[str, tuple[Wanted, list[Obj]]]:
        """VolumeAttachment name -> (what it attaches, the pods needing it) for the node."""
        node = self.nodes.get(node_name)
        if node is None or (node["metadata"].get("annotations") or {}).get(self.managed_key) != "true":
            return {}
        wanted: dict[str, tuple[Wanted, list[Obj]]] = {}
        for pod in self.pods.list():
            if (pod.get("spec") or {}).get("nodeName") != node_name or pod_terminated(pod):
                continue
            for item in self._wanted_for(pod):
                name = attachment_name(item.handle, item.driver, node_name)
                wanted.setdefault(name, (item, []))[1].append(pod)
        return wanted

    # -- sync -----------------------------------------------------------------------------------

    async def sync(self, node_name: str) -> None:
        desired = self.desired(node_name)
        current = {
            va["metadata"]["name"]: va
            for va in self.attachments.list()
            if (va.get("spec") or {}).get("nodeName") == node_name
        }
        for name, (item, pods) in desired.items():
            if name not in current:
                await self._attach(node_name, name, item, pods)
        waiting = False
        for name, va in current.items():
            if name not in desired and not await self._detach(node_name, va):
                waiting = True
        await self._report_attached(node_name, desired, current)
        if waiting:
            raise RequeueAfter(IN_USE_RECHECK, "volumes still in use on the node")

    async def _attach(self, node_name: str, name: str, item: Wanted, pods: list[Obj]) -> None:
        if not item.multi_attach:
            elsewhere = [
                va
                for va in self.attachments.list()
                if (va.get("spec") or {}).get("source", {}).get("persistentVolumeName") == item.volume
                and (va.get("spec") or {}).get("nodeName") != node_name
                and not va["metadata"].get("deletionTimestamp")
            ]
            if elsewhere:
                await self._multi_attach_error(item, pods, elsewhere)
                return
        body = {
            "apiVersion": f"{self.storage}/v1",
            "kind": "VolumeAttachment",
            "metadata": {"name": name},
            "spec": {"attacher": item.driver, "nodeName": node_name, "source": {"persistentVolumeName": item.volume}},
        }
        try:
            await self.context.client.create(resource_path(self.storage, "v1", "volumeattachments"), body)
        except ApiError as error:
            if error.reason != "AlreadyExists":
                for pod in pods:
                    message = f'AttachVolume.Attach failed for volume "{item.volume}" : {error}'
                    await self.events.event(pod, "Pod", "v1", WARNING, "FailedAttachVolume", message)
                raise

    async def _multi_attach_error(self, item: Wanted, pods: list[Obj], elsewhere: list[Obj]) -> None:
        """Upstream's `reportMultiAttachError`: name the other pods of the same namespace, if any."""
        other_nodes = {(va.get("spec") or {}).get("nodeName") for va in elsewhere}
        for pod in pods:
            namespace = pod["metadata"].get("namespace", "")
            users = sorted(
                other["metadata"]["name"]
                for other in self.pods.by_index(NAMESPACE_INDEX, namespace)
                if (other.get("spec") or {}).get("nodeName") in other_nodes
                and any(w.volume == item.volume for w in self._wanted_for(other))
            )
            if users:
                message = (
                    f'Multi-Attach error for volume "{item.volume}" Volume is already used by pod(s) {", ".join(users)}'
                )
            else:
                message = (
                    f'Multi-Attach error for volume "{item.volume}" Volume is already exclusively attached to one '
                    "node and can't be attached to another"
                )
            await self.events.event(pod, "Pod", "v1", WARNING, "FailedAttachVolume", message)

    def _unique_name(self, va: Obj) -> str:
        source = (va.get("spec") or {}).get("source") or {}
        volume = self.volumes.get(source.get("persistentVolumeName", "")) or {}
        csi = (volume.get("spec") or {}).get("csi") or {}
        return f"{self.plugin_prefix}{csi.get('driver', '')}^{csi.get('volumeHandle', '')}"

    async def _detach(self, node_name: str, va: Obj) -> bool:
        """Delete the attachment once the node stopped using the volume (or waited too long); False
        while still waiting."""
        name = va["metadata"]["name"]
        node = self.nodes.get(node_name)
        in_use = set(((node or {}).get("status") or {}).get("volumesInUse") or [])
        if node is not None and self._unique_name(va) in in_use:
            since = self._unmount_wait.setdefault(name, self.context.clock.now())
            if not self.force_detach or self.context.clock.now() - since < MAX_WAIT_FOR_UNMOUNT:
                return False
        self._unmount_wait.pop(name, None)
        if va["metadata"].get("deletionTimestamp"):
            return True
        try:
            await self.context.client.delete(resource_path(self.storage, "v1", "volumeattachments", name=name))
        except ApiError as error:
            if error.reason != "NotFound":
                raise
        return True

    async def _report_attached(self, node_name: str, desired: dict[str, Any], current: dict[str, Obj]) -> None:
        node = self.nodes.get(node_name)
        if node is None:
            return
        attached = sorted(
            {
                self._unique_name(va)
                for name, va in current.items()
                if ((va.get("status") or {}).get("attached") and not va["metadata"].get("deletionTimestamp"))
                or (name not in desired and name in self._unmount_wait)
            }
        )
        wanted = [{"name": name, "devicePath": ""} for name in attached]
        if ((node.get("status") or {}).get("volumesAttached") or []) == wanted:
            return
        path = resource_path("", "v1", "nodes", name=node_name) + "/status"
        try:
            await self.context.client.patch(path, {"status": {"volumesAttached": wanted or None}})
        except ApiError as error:
            if error.reason != "NotFound":
                raise
