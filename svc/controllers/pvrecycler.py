"""The volume recycler of the persistentvolume-binder: a Released volume with reclaim policy Recycle
is scrubbed by a pod and offered again.

Upstream `recycleVolumeOperation` with the in-tree NFS and hostPath recycler plugins (the only ones
left): the pod template (`--pv-recycler-pod-template-filepath-nfs`/`-hostpath`, else upstream's
default: `find /scrub -mindepth 1 -delete` on the volume mounted at /scrub) gets the volume as its
first volume, the name `recycler-for-<pv>` in its namespace, and an active deadline of the larger of
the plugin's minimum timeout and its per-Gi increment times the capacity (`--pv-recycler-minimum-
timeout-*`, `--pv-recycler-increment-timeout-nfs`, `--pv-recycler-timeout-increment-hostpath`). The
recycler watches the pod until it Succeeds or Fails, deletes it, and reports: `VolumeRecycled`, then
the volume is unbound and Available; or `VolumeFailedRecycle` (`Recycle failed: ...`) and Failed. A
volume of any other kind has no recycler (`No recycler plugin found for the volume!`). On svc-nodes
the pod runs on a simulated node and completes. A pod of the same name left by an earlier attempt is
deleted and the recycling retried later, as upstream.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from svc.client.aio import ApiError, AsyncRestClient, resource_path
from svc.machinery.quantity import parse_quantity

Obj = dict[str, Any]
GI = Decimal(1024**3)
SCRUB = 'test -e /scrub && find /scrub -mindepth 1 -delete && test -z "$(ls -A /scrub)" || exit 1'


def default_template() -> Obj:
    """upstream's `NewPersistentVolumeRecyclerPodTemplate`."""
    container = {
        "name": "pv-recycler",
        "image": "registry.k8s.io/build-image/debian-base:bookworm-v1.0.2",
        "command": ["/bin/sh"],
        "args": ["-c", SCRUB],
        "volumeMounts": [{"name": "vol", "mountPath": "/scrub"}],
    }
    spec = {
        "activeDeadlineSeconds": 60,
        "restartPolicy": "Never",
        "volumes": [{"name": "vol"}],
        "containers": [container],
    }
    return {"metadata": {"generateName": "pv-recycler-", "namespace": "default"}, "spec": spec}


def load_template(path: str) -> Obj:
    """A pod template file; ValueError (upstream's words) when it cannot serve as one."""
    try:
        pod = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ValueError(str(error)) from None
    if not isinstance(pod, dict) or not ((pod.get("spec") or {}).get("volumes")):
        raise ValueError(f"pod specification ({path}): does not contain any volume(s)")
    pod.setdefault("metadata", {}).setdefault("namespace", "default")
    return pod


@dataclass(frozen=True)
class Plugin:
    """One recycler plugin: which volume source it scrubs and its timeouts."""

    source: str
    minimum_timeout: int
    timeout_increment: int
    template: Obj = field(default_factory=default_template)

    def timeout(self, volume: Obj) -> int:
        """upstream's `CalculateTimeoutForVolume`: whole Gi times the increment, at least the minimum."""
        capacity = ((volume.get("spec") or {}).get("capacity") or {}).get("storage", "0")
        whole_gi = int(parse_quantity(capacity).value // GI)
        return max(self.minimum_timeout, whole_gi * self.timeout_increment)

    def pod_for(self, volume: Obj) -> Obj:
        pod = copy.deepcopy(self.template)
        metadata = pod.setdefault("metadata", {})
        metadata.pop("generateName", None)
        metadata["name"] = f"recycler-for-{volume['metadata']['name']}"
        metadata.setdefault("namespace", "default")
        spec = pod["spec"]
        spec["activeDeadlineSeconds"] = self.timeout(volume)
        source = volume["spec"][self.source]
        if self.source == "nfs":
            source = {"server": source.get("server"), "path": source.get("path")}
        else:
            source = {"path": source.get("path")}
        spec["volumes"][0] = {"name": spec["volumes"][0].get("name", "vol"), self.source: source}
        return pod


class RecycleError(Exception):
    pass


class Recycler:
    def __init__(self, client: AsyncRestClient, plugins: list[Plugin]) -> None:
        self.client = client
        self.plugins = plugins

    def plugin_for(self, volume: Obj) -> Plugin | None:
        spec = volume.get("spec") or {}
        return next((plugin for plugin in self.plugins if spec.get(plugin.source)), None)

    async def recycle(self, volume: Obj, plugin: Plugin) -> None:
        """upstream's `RecycleVolumeByWatchingPodUntilCompletion`; RecycleError says why it failed."""
        pod = plugin.pod_for(volume)
        namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        path = resource_path("", "v1", "pods", namespace=namespace, name=name)
        try:
            await self.client.create(resource_path("", "v1", "pods", namespace=namespace), pod)
        except ApiError as error:
            if error.reason != "AlreadyExists":
                raise RecycleError(f"unexpected error creating recycler pod:  {error}") from None
            try:
                await self.client.delete(path)
            except ApiError as delete_error:
                raise RecycleError(f"failed to delete old recycler pod {namespace}/{name}: {delete_error}") from None
            raise RecycleError("old recycler pod found, will retry later") from None
        try:
            failure = await self._outcome(namespace, name)
        finally:
            deleted = await self._delete(path)
        if failure:
            raise RecycleError(f"failed to recycle volume: {failure}")
        if deleted:
            raise RecycleError(f"failed to delete recycler pod: {deleted}")

    async def _outcome(self, namespace: str, name: str) -> str:
        """'' once the pod Succeeded, else why it did not."""
        params = {"fieldSelector": f"metadata.name={name}"}
        async for event in self.client.watch(resource_path("", "v1", "pods", namespace=namespace), params):
            kind, pod = event.get("type"), event.get("object") or {}
            if kind == "DELETED":
                return "recycler pod was deleted"
            if kind == "ERROR":
                return "recycler pod watcher failed"
            phase = (pod.get("status") or {}).get("phase")
            if phase == "Succeeded":
                return ""
            if phase == "Failed":
                return (pod.get("status") or {}).get("message") or "pod failed, pod.Status.Message unknown"
        return f'recycler pod "{name}" watch channel had been closed'

    async def _delete(self, path: str) -> str:
        try:
            await self.client.delete(path)
        except ApiError as error:
            if error.reason != "NotFound":
                return str(error)
        return ""
