"""The selinux-warning-controller (off by default): an event on pods that share a volume but would
mount it with different SELinux labels or SELinuxChangePolicies, so only one of them could use it on
a node.

Upstream `pkg/controller/volume/selinuxwarning`, for the volume plugins it knows (CSI, hostPath, NFS;
volumes of other kinds are skipped): each container's effective `seLinuxOptions` (its own, else the
pod's) becomes a label `user:role:type:level` of the given parts only (the controller cannot know a
node's defaults; an empty part conflicts with nothing). A CSI volume is mounted with that label when
its CSIDriver says `seLinuxMount: true` and the volume is ReadWriteOncePod (any access mode with the
SELinuxMount gate), unless the pod asks for the `Recursive` SELinuxChangePolicy; a volume mounted
without a label, or by a plugin that cannot, counts as `Recursive`. Volumes are identified as the
node would (`kubernetes.io/csi/<driver>^<handle>`, `kubernetes.io/host-path/<path>`,
`kubernetes.io/nfs/<server>/<path>`), so pods of different claims on one volume are compared. A new
conflict gives both pods a Normal event `SELinuxLabelConflict` or `SELinuxChangePolicyConflict`
(naming the other pod only within a namespace); two containers of one pod mounting a volume with
different labels give it `MultipleSELinuxLabels`. Finished or deleted pods leave the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from svc.client.events import NORMAL, WARNING
from svc.client.informer import Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "selinux-warning-controller"
COMPONENT = "selinux_warning"
MOUNT_OPTION, RECURSIVE = "MountOption", "Recursive"
Obj = dict[str, Any]


def file_label(options: Obj | None) -> str:
    """upstream's controller translator: the given parts joined, empty for no options at all."""
    if not options:
        return ""
    label = ":".join(options.get(part) or "" for part in ("user", "role", "type", "level"))
    return "" if label == ":::" else label


def labels_conflict(a: str, b: str) -> bool:
    """Parts that differ and are both given conflict; a missing part is incomparable."""
    parts_a, parts_b = a.split(":", 3), b.split(":", 3)
    width = max(len(parts_a), len(parts_b))
    parts_a += [""] * (width - len(parts_a))
    parts_b += [""] * (width - len(parts_b))
    return any(x != y and x and y for x, y in zip(parts_a, parts_b, strict=True))


def container_contexts(pod: Obj) -> dict[str, list[str]]:
    """Volume name -> the file label of each container mounting it (effective seLinuxOptions)."""
    spec = pod.get("spec") or {}
    pod_options = (spec.get("securityContext") or {}).get("seLinuxOptions")
    found: dict[str, list[str]] = {}
    for container in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
        options = (container.get("securityContext") or {}).get("seLinuxOptions") or pod_options
        for mount in container.get("volumeMounts") or []:
            found.setdefault(mount["name"], [])
            if options:
                found[mount["name"]].append(file_label(options))
    return found


@dataclass(frozen=True)
class Conflict:
    property: str
    reason: str
    pod: str
    value: str
    other: str
    other_value: str

    def message(self) -> str:
        """upstream's `EventMessage`: the other pod is named only within the same namespace."""
        namespace, other_namespace = self.pod.partition("/")[0], self.other.partition("/")
        if namespace == other_namespace[0]:
            return (
                f'{self.property} "{self.value}" conflicts with pod {other_namespace[2]} that uses the same volume '
                f'as this pod with {self.property} "{self.other_value}". If both pods land on the same node, only '
                "one of them may access the volume."
            )
        return (
            f'{self.property}"{self.value}" conflicts with another pod that uses the same volume as this pod with a '
            f"different {self.property}. If both pods land on the same node, only one of them may access the volume."
        )


class SELinuxWarningController:
    def __init__(self, context: ControllerContext, *, selinux_mount_gate: bool = False, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.selinux_mount_gate = selinux_mount_gate
        self.events = context.recorder(COMPONENT)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(COMPONENT, clock=context.clock)
        self.pods = context.informers.informer("", "v1", "pods")
        self.claims = context.informers.informer("", "v1", "persistentvolumeclaims")
        self.volumes = context.informers.informer("", "v1", "persistentvolumes")
        self.drivers = context.informers.informer("storage.k8s.io", "v1", "csidrivers")
        # unique volume name -> pod key -> (label, change policy)
        self.cache: dict[str, dict[str, tuple[str, str]]] = {}
        self.pods.add_handler(
            Handler(
                on_add=lambda pod: self.queue.add(key_of(pod)),
                on_update=self._pod_updated,
                on_delete=lambda pod: self.queue.add(key_of(pod)),
            )
        )
        self.claims.add_handler(
            Handler(
                on_add=lambda claim: self._claim_bound(claim, None),
                on_update=lambda old, new: self._claim_bound(new, old),
            )
        )
        self.volumes.add_handler(
            Handler(
                on_add=lambda pv: self._volume_bound(pv, None), on_update=lambda old, new: self._volume_bound(new, old)
            )
        )
        self.drivers.add_handler(
            Handler(
                on_add=self._driver_changed,
                on_update=lambda old, new: self._driver_changed(new, old),
                on_delete=self._driver_changed,
            )
        )

    # -- what changed ----------------------------------------------------------------------------

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        """Pod volumes and labels are immutable: only a pod finishing matters."""
        phase = (new.get("status") or {}).get("phase")
        if (old.get("status") or {}).get("phase") != phase and phase in ("Succeeded", "Failed"):
            self.queue.add(key_of(new))

    def _claim_bound(self, claim: Obj, old: Obj | None) -> None:
        name = (claim.get("spec") or {}).get("volumeName")
        if name and (old is None or (old.get("spec") or {}).get("volumeName") != name):
            self._queue_claim_users(claim["metadata"].get("namespace", ""), claim["metadata"]["name"])

    def _volume_bound(self, volume: Obj, old: Obj | None) -> None:
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        old_uid = ((old or {}).get("spec") or {}).get("claimRef", {}).get("uid") if old else None
        if ref.get("uid") and (old is None or old_uid != ref["uid"]):
            self._queue_claim_users(ref.get("namespace", ""), ref.get("name", ""))

    def _queue_claim_users(self, namespace: str, claim: str) -> None:
        for pod in self.pods.by_index("namespace", namespace):
            if claim in self._claim_names(pod).values():
                self.queue.add(key_of(pod))

    def _driver_changed(self, driver: Obj, old: Obj | None = None) -> None:
        mount = bool((driver.get("spec") or {}).get("seLinuxMount"))
        if old is not None and bool((old.get("spec") or {}).get("seLinuxMount")) == mount:
            return
        prefix = f"kubernetes.io/csi/{driver['metadata']['name']}^"
        for volume, pods in self.cache.items():
            if volume.startswith(prefix):
                for key in pods:
                    self.queue.add(key)

    # -- the sync --------------------------------------------------------------------------------

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        pod = self.pods.get(key)
        if pod is None or (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            self._forget(key)
            return
        contexts = container_contexts(pod)
        conflicts: list[Conflict] = []
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            if volume["name"] not in contexts:
                continue
            resolved = self._resolve(pod, volume)
            if resolved is None:
                continue
            unique, supports_context_mount, pv = resolved
            labels = set(contexts[volume["name"]])
            if len(labels) > 1:
                message = f'Volume "{volume["name"]}" is mounted twice with different SELinux labels inside this pod'
                await self.events.event(pod, "Pod", "v1", WARNING, "MultipleSELinuxLabels", message)
                continue
            label, policy = self._mount_label(pod, labels.pop() if labels else "", supports_context_mount, pv)
            conflicts += self._add(unique, key, label, policy)
        for conflict in conflicts:
            target = self.pods.get(conflict.pod)
            if target is not None:
                await self.events.event(target, "Pod", "v1", NORMAL, conflict.reason, conflict.message())

    def _claim_names(self, pod: Obj) -> dict[str, str]:
        """Volume name -> the claim it uses (a named claim, or the ephemeral `<pod>-<volume>`)."""
        names = {}
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            if volume.get("persistentVolumeClaim"):
                names[volume["name"]] = volume["persistentVolumeClaim"].get("claimName", "")
            elif volume.get("ephemeral"):
                names[volume["name"]] = f"{pod['metadata']['name']}-{volume['name']}"
        return names

    def _resolve(self, pod: Obj, volume: Obj) -> tuple[str, bool, Obj | None] | None:
        """(unique volume name, whether its plugin can mount with a context, its PV) or None."""
        source: Obj = volume
        pv = None
        claim_name = self._claim_names(pod).get(volume["name"])
        if claim_name:
            claim = self.claims.get(f"{pod['metadata'].get('namespace', '')}/{claim_name}")
            bound = ((claim or {}).get("spec") or {}).get("volumeName")
            pv = self.volumes.get(bound) if bound else None
            if pv is None:
                return None  # looked at again when the claim or volume binds
            source = pv.get("spec") or {}
        if source.get("csi") and pv is not None:
            driver = source["csi"].get("driver", "")
            spec = ((self.drivers.get(driver) or {}).get("spec")) or {}
            return (
                f"kubernetes.io/csi/{driver}^{source['csi'].get('volumeHandle', '')}",
                bool(spec.get("seLinuxMount")),
                pv,
            )
        if source.get("hostPath"):
            return f"kubernetes.io/host-path/{source['hostPath'].get('path', '')}", False, pv
        if source.get("nfs"):
            nfs = source["nfs"]
            return f"kubernetes.io/nfs/{nfs.get('server', '')}/{nfs.get('path', '')}", False, pv
        return None

    def _mount_label(self, pod: Obj, label: str, supports_context_mount: bool, pv: Obj | None) -> tuple[str, str]:
        policy = ((pod.get("spec") or {}).get("securityContext") or {}).get("seLinuxChangePolicy") or MOUNT_OPTION
        if supports_context_mount:
            modes = ((pv or {}).get("spec") or {}).get("accessModes") or []
            if (not self.selinux_mount_gate and modes != ["ReadWriteOncePod"]) or policy == RECURSIVE:
                label = ""
        if not supports_context_mount or not label:
            policy = RECURSIVE
        return label, policy

    def _add(self, volume: str, key: str, label: str, policy: str) -> list[Conflict]:
        """upstream's `AddVolume`: record the pod's use, and the conflicts it has with the others."""
        users = self.cache.setdefault(volume, {})
        users[key] = (label, policy)
        found = []
        for other, (other_label, other_policy) in users.items():
            if other == key:
                continue
            if other_policy != policy:
                found += [
                    Conflict("SELinuxChangePolicy", "SELinuxChangePolicyConflict", key, policy, other, other_policy),
                    Conflict("SELinuxChangePolicy", "SELinuxChangePolicyConflict", other, other_policy, key, policy),
                ]
            if labels_conflict(other_label, label):
                found += [
                    Conflict("SELinux label", "SELinuxLabelConflict", key, label, other, other_label),
                    Conflict("SELinux label", "SELinuxLabelConflict", other, other_label, key, label),
                ]
        return found

    def _forget(self, key: str) -> None:
        for volume in list(self.cache):
            self.cache[volume].pop(key, None)
            if not self.cache[volume]:
                del self.cache[volume]
