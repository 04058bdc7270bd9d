"""The statefulset controller: pods with stable names, ordinals and storage, created and replaced in order.

Upstream `pkg/controller/statefulset`:
- pod `i` is `<set>-<i>` (from `spec.ordinals.start`), with hostname = its name, subdomain = the
  set's `serviceName`, the `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`
  labels, and one claim per `volumeClaimTemplates` entry (`<template>-<set>-<i>`, created first);
- `OrderedReady` creates pods one at a time in ordinal order, each waiting for the previous to be
  Running and Ready, and removes surplus pods from the highest ordinal one at a time; `Parallel` does
  both at once;
- failed pods are deleted and recreated;
- the template history is kept as ControllerRevisions: `RollingUpdate` replaces pods of an old
  revision from the highest ordinal down to `partition`, one at a time once all are ready;
  `OnDelete` waits for pods to be deleted by someone else;
- `persistentVolumeClaimRetentionPolicy`: `whenDeleted: Delete` makes the set own the claims,
  `whenScaled: Delete` makes a removed pod own its claims, so the garbage collector deletes them.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.controller_ref import claim, controller_of, owned_by, owner_reference, selector_of
from svc.controllers.history import HASH_LABEL, History, hash_of
from svc.controllers.replicaset import is_available, ready_since

NAME = "statefulset-controller"
Obj = dict[str, Any]
TERMINAL = ("Succeeded", "Failed")


def _hash_label(pod: Obj) -> str:
    return (pod["metadata"].get("labels") or {}).get(HASH_LABEL, "")


def _healthy(pod: Obj, min_ready: int, now: float) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and is_available(pod, min_ready, now)


class StatefulSetController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.apps = context.profile.group("apps")
        self.events = context.recorder(NAME)
        self.pod_name_label = context.profile.label("statefulset.kubernetes.io/pod-name")
        self.pod_index_label = context.profile.label("apps.kubernetes.io/pod-index")
        self.history = History(context.client, self.apps)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.sets: Informer = context.informers.informer("apps", "v1", "statefulsets")
        self.pods: Informer = context.informers.informer("", "v1", "pods")
        self.claims: Informer = context.informers.informer("", "v1", "persistentvolumeclaims")
        self.revisions: Informer = context.informers.informer("apps", "v1", "controllerrevisions")
        enqueue = lambda obj: self.queue.add(key_of(obj))  # noqa: E731
        self.sets.add_handler(Handler(on_add=enqueue, on_update=lambda _old, new: enqueue(new)))
        on_pod = lambda pod: self._enqueue_owner(pod)  # noqa: E731
        self.pods.add_handler(Handler(on_add=on_pod, on_update=lambda _old, new: on_pod(new), on_delete=on_pod))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    def _enqueue_owner(self, pod: Obj) -> None:
        ref = controller_of(pod)
        if ref is not None and ref.get("kind") == "StatefulSet":
            self.queue.add(f"{pod['metadata']['namespace']}/{ref.get('name')}")

    def _ordinal(self, set_name: str, pod: Obj) -> int | None:
        match = re.fullmatch(rf"{re.escape(set_name)}-(\d+)", pod["metadata"]["name"])
        return int(match.group(1)) if match else None

    # -- objects ------------------------------------------------------------------------------
    def _claim_name(self, template: Obj, set_name: str, ordinal: int) -> str:
        return f"{template['metadata']['name']}-{set_name}-{ordinal}"

    def _new_pod(self, sts: Obj, revision: Obj, ordinal: int) -> Obj:
        set_name = sts["metadata"]["name"]
        name = f"{set_name}-{ordinal}"
        template = copy.deepcopy(((revision.get("data") or {}).get("spec") or {}).get("template") or {})
        template.pop("$patch", None)
        metadata = template.get("metadata") or {}
        spec = template.get("spec") or {}
        spec["hostname"] = name
        if sts["spec"].get("serviceName"):
            spec["subdomain"] = sts["spec"]["serviceName"]
        volumes = {volume.get("name"): volume for volume in spec.get("volumes") or []}
        for claim_template in sts["spec"].get("volumeClaimTemplates") or []:
            volume_name = claim_template["metadata"]["name"]
            volumes[volume_name] = {
                "name": volume_name,
                "persistentVolumeClaim": {"claimName": self._claim_name(claim_template, set_name, ordinal)},
            }
        if volumes:
            spec["volumes"] = list(volumes.values())
        labels = {
            **(metadata.get("labels") or {}),
            HASH_LABEL: hash_of(revision),
            self.pod_name_label: name,
            self.pod_index_label: str(ordinal),
        }
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": sts["metadata"]["namespace"],
                "labels": labels,
                "annotations": dict(metadata.get("annotations") or {}),
                "ownerReferences": [owner_reference(sts, f"{self.apps}/v1", "StatefulSet")],
            },
            "spec": spec,
        }

    async def _ensure_claims(self, sts: Obj, ordinal: int) -> None:
        namespace, set_name = sts["metadata"]["namespace"], sts["metadata"]["name"]
        policy = sts["spec"].get("persistentVolumeClaimRetentionPolicy") or {}
        selector_labels = (sts["spec"].get("selector") or {}).get("matchLabels") or {}
        for template in sts["spec"].get("volumeClaimTemplates") or []:
            name = self._claim_name(template, set_name, ordinal)
            if self.claims.get(f"{namespace}/{name}") is not None:
                continue
            metadata = template.get("metadata") or {}
            body: Obj = {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {
                    "name": name,
                    "namespace": namespace,
                    "labels": {**selector_labels, **(metadata.get("labels") or {})},
                    "annotations": dict(metadata.get("annotations") or {}),
                },
                "spec": copy.deepcopy(template.get("spec") or {}),
            }
            if policy.get("whenDeleted") == "Delete":
                reference = owner_reference(sts, f"{self.apps}/v1", "StatefulSet")
                body["metadata"]["ownerReferences"] = [{**reference, "controller": True}]
            what = f"Claim {name} Pod {set_name}-{ordinal} in StatefulSet {set_name}"
            try:
                await self.context.client.create(
                    resource_path("", "v1", "persistentvolumeclaims", namespace=namespace), body
                )
            except ApiError as error:
                if error.reason != "AlreadyExists":
                    await self._event(sts, "Warning", "FailedCreate", f"create {what} failure: {error}")
                    raise
            else:
                await self._event(sts, "Normal", "SuccessfulCreate", f"create {what} success")

    async def _release_claims_to(self, sts: Obj, pod: Obj, ordinal: int) -> None:
        """`whenScaled: Delete`: the removed pod owns its claims, so they go with it."""
        policy = sts["spec"].get("persistentVolumeClaimRetentionPolicy") or {}
        if policy.get("whenScaled") != "Delete":
            return
        namespace = sts["metadata"]["namespace"]
        reference = {"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}
        for template in sts["spec"].get("volumeClaimTemplates") or []:
            name = self._claim_name(template, sts["metadata"]["name"], ordinal)
            found = self.claims.get(f"{namespace}/{name}")
            if found is None:
                continue
            references = [r for r in found["metadata"].get("ownerReferences") or [] if r.get("kind") != "StatefulSet"]
            path = resource_path("", "v1", "persistentvolumeclaims", namespace=namespace, name=name)
            try:
                await self.context.client.patch(path, {"metadata": {"ownerReferences": [*references, reference]}})
            except ApiError as error:
                if error.reason != "NotFound":
                    raise

    async def _delete(self, sts: Obj, pod: Obj) -> None:
        path = resource_path("", "v1", "pods", namespace=pod["metadata"]["namespace"], name=pod["metadata"]["name"])
        what = f"delete Pod {pod['metadata']['name']} in StatefulSet {sts['metadata']['name']}"
        try:
            await self.context.client.delete(path, {"preconditions": {"uid": pod["metadata"]["uid"]}})
        except ApiError as error:
            if error.reason not in ("NotFound", "Conflict"):
                await self._event(sts, "Warning", "FailedDelete", f"{what} failed error: {error}")
                raise
        else:
            await self._event(sts, "Normal", "SuccessfulDelete", f"{what} successful")

    async def _event(self, sts: Obj, event_type: str, reason: str, message: str) -> None:
        """Upstream's `StatefulPodControl` events, on the StatefulSet."""
        await self.events.event(sts, "StatefulSet", f"{self.apps}/v1", event_type, reason, message)

    # -- sync ---------------------------------------------------------------------------------
    async def sync(self, key: str) -> None:
        sts = self.sets.get(key)
        if sts is None:
            return
        sts = copy.deepcopy(sts)
        namespace, set_name = sts["metadata"]["namespace"], sts["metadata"]["name"]
        reference = owner_reference(sts, f"{self.apps}/v1", "StatefulSet")
        pods = await claim(
            self.context.client,
            sts,
            self.pods.by_index(NAMESPACE_INDEX, namespace),
            selector_of(sts),
            reference,
            lambda pod: resource_path("", "v1", "pods", namespace=namespace, name=pod["metadata"]["name"]),
        )
        revisions = owned_by(self.revisions.by_index(NAMESPACE_INDEX, namespace), sts)
        update, collisions = await self.history.record(sts, "StatefulSet", revisions)
        by_hash = {hash_of(r): r for r in [*revisions, update]}
        status = sts.get("status") or {}
        current = next((r for r in by_hash.values() if r["metadata"]["name"] == status.get("currentRevision")), update)
        by_ordinal = {ordinal: pod for pod in pods if (ordinal := self._ordinal(set_name, pod)) is not None}
        if not sts["metadata"].get("deletionTimestamp"):
            await self._reconcile(sts, by_ordinal, current, update)
        live = {_hash_label(pod) for pod in pods} | {hash_of(current), hash_of(update)}
        await self.history.truncate(sts, revisions, live)
        await self._update_status(sts, list(by_ordinal.values()), current, update, collisions)

    async def _reconcile(self, sts: Obj, by_ordinal: dict[int, Obj], current: Obj, update: Obj) -> None:
        spec = sts["spec"]
        start = (spec.get("ordinals") or {}).get("start", 0) or 0
        replicas = spec.get("replicas", 1)
        ordered = spec.get("podManagementPolicy", "OrderedReady") != "Parallel"
        strategy = spec.get("updateStrategy") or {}
        rolling = (strategy.get("type") or "RollingUpdate") == "RollingUpdate"
        partition = ((strategy.get("rollingUpdate") or {}).get("partition") or 0) if rolling else replicas
        min_ready = spec.get("minReadySeconds") or 0
        now = self.context.clock.wall()
        wanted = range(start, start + replicas)
        for ordinal in wanted:
            pod = by_ordinal.get(ordinal)
            if pod is not None and (pod.get("status") or {}).get("phase") in TERMINAL:
                await self._delete(sts, pod)
                if ordered:
                    return
                continue
            if pod is None:
                revision = update if ordinal - start >= partition or not rolling else current
                await self._ensure_claims(sts, ordinal)
                new = self._new_pod(sts, revision, ordinal)
                what = f"create Pod {new['metadata']['name']} in StatefulSet {sts['metadata']['name']}"
                try:
                    await self.context.client.create(
                        resource_path("", "v1", "pods", namespace=sts["metadata"]["namespace"]), new
                    )
                except ApiError as error:
                    if error.reason != "AlreadyExists":
                        await self._event(sts, "Warning", "FailedCreate", f"{what} failed error: {error}")
                        raise
                else:
                    await self._event(sts, "Normal", "SuccessfulCreate", f"{what} successful")
                if ordered:
                    return
                continue
            if ordered and (pod["metadata"].get("deletionTimestamp") or not _healthy(pod, min_ready, now)):
                if min_ready and ready_since(pod) is not None:
                    self.queue.add_after(key_of(sts), min_ready + 1)
                return
        condemned = sorted((o for o in by_ordinal if o not in wanted), reverse=True)
        if condemned:
            if ordered and not all(_healthy(by_ordinal[o], min_ready, now) for o in wanted):
                return
            for ordinal in condemned[:1] if ordered else condemned:
                pod = by_ordinal[ordinal]
                if pod["metadata"].get("deletionTimestamp"):
                    if ordered:
                        return
                    continue
                await self._release_claims_to(sts, pod, ordinal)
                await self._delete(sts, pod)
            return
        if not rolling or not all(_healthy(by_ordinal[o], min_ready, now) for o in wanted if o in by_ordinal):
            return
        for ordinal in sorted(wanted, reverse=True):
            if ordinal - start < partition:
                break
            pod = by_ordinal.get(ordinal)
            if pod is not None and _hash_label(pod) != hash_of(update) and not pod["metadata"].get("deletionTimestamp"):
                await self._delete(sts, pod)
                return

    async def _update_status(self, sts: Obj, pods: list[Obj], current: Obj, update: Obj, collisions: int) -> None:
        now = self.context.clock.wall()
        min_ready = sts["spec"].get("minReadySeconds") or 0
        present = [pod for pod in pods if not pod["metadata"].get("deletionTimestamp")]
        status: Obj = {
            "observedGeneration": sts["metadata"].get("generation", 0),
            "replicas": len(present),
            "readyReplicas": sum(1 for pod in present if ready_since(pod) is not None),
            "availableReplicas": sum(1 for pod in present if is_available(pod, min_ready, now)),
            "currentReplicas": sum(1 for pod in present if _hash_label(pod) == hash_of(current)),
            "updatedReplicas": sum(1 for pod in present if _hash_label(pod) == hash_of(update)),
            "currentRevision": current["metadata"]["name"],
            "updateRevision": update["metadata"]["name"],
        }
        replicas = sts["spec"].get("replicas", 1)
        if status["updatedReplicas"] == replicas and status["readyReplicas"] == replicas:
            status["currentRevision"] = update["metadata"]["name"]
            status["currentReplicas"] = status["updatedReplicas"]
        if collisions:
            status["collisionCount"] = collisions
        old = sts.get("status") or {}
        if all(old.get(name) == value for name, value in status.items()):
            return
        metadata = sts["metadata"]
        path = resource_path(
            self.apps,
            "v1",
            "statefulsets",
            namespace=metadata["namespace"],
            name=metadata["name"],
            subresource="status",
        )
        try:
            await self.context.client.update(path, {**sts, "status": {**old, **status}})
        except ApiError as error:
            if error.reason not in ("Conflict", "NotFound"):
                raise
            self.queue.add(key_of(sts))
