"""The replicaset and replicationcontroller controllers: keep the number of pods a replica set asks for.

Upstream `pkg/controller/replicaset` (which also runs ReplicationControllers, through the same code):
- a sync claims the namespace's matching pods (adopting orphans, releasing strays), then creates or
  deletes the difference to `spec.replicas` (at most 500 per sync), unless earlier creations or
  deletions are not yet seen (expectations);
- creations go in slow-start batches (1, 2, 4, ...) so a failing template costs one request, not
  hundreds; deletions take the least useful pods first (unscheduled, pending, not ready, most
  restarted, newest);
- status counts the active pods, those whose labels match the template, the ready and the available
  (ready for `minReadySeconds`), with `observedGeneration`.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import pod_events
from svc.controllers.context import ControllerContext
from svc.controllers.controller_ref import claim, controller_of, owner_reference
from svc.controllers.expectations import Expectations
from svc.machinery.labels import LabelSelector, SelectorError, label_selector_from_dict

Obj = dict[str, Any]
BURST_REPLICAS = 500
SLOW_START_INITIAL_BATCH = 1
TERMINAL = ("Succeeded", "Failed")


@dataclass(frozen=True)
class Kind:
    """What differs between ReplicaSets and ReplicationControllers."""

    name: str
    group: str
    kind: str
    resource: str
    component: str

    def selector(self, owner: Obj) -> LabelSelector:
        selector = (owner.get("spec") or {}).get("selector")
        if self.kind == "ReplicationController":
            selector = {
                "matchLabels": selector or (owner["spec"].get("template") or {}).get("metadata", {}).get("labels")
            }
        try:
            return label_selector_from_dict(selector)
        except SelectorError:
            return LabelSelector.nothing()


REPLICA_SETS = Kind("replicaset-controller", "apps", "ReplicaSet", "replicasets", "replicaset-controller")
REPLICATION_CONTROLLERS = Kind(
    "replicationcontroller-controller", "", "ReplicationController", "replicationcontrollers", "replication-controller"
)


def _timestamp(text: str | None) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() if text else 0.0


def is_active(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") not in TERMINAL and not pod["metadata"].get("deletionTimestamp")


def ready_since(pod: Obj) -> float | None:
    """When the pod became Ready, or None when it is not."""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return _timestamp(condition.get("lastTransitionTime")) if condition.get("status") == "True" else None
    return None


def is_available(pod: Obj, min_ready_seconds: int, now: float) -> bool:
    since = ready_since(pod)
    return since is not None and (min_ready_seconds == 0 or since + min_ready_seconds <= now)


_PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}


def deletion_rank(pod: Obj) -> tuple[Any, ...]:
    """Upstream's `ActivePods` order: the pods to delete first sort first."""
    status = pod.get("status") or {}
    ready = ready_since(pod)
    restarts = max((c.get("restartCount", 0) for c in status.get("containerStatuses") or []), default=0)
    return (
        bool((pod.get("spec") or {}).get("nodeName")),
        _PHASE_RANK.get(status.get("phase", ""), 1),
        ready is not None,
        -(ready or 0.0),
        -restarts,
        -_timestamp(pod["metadata"].get("creationTimestamp")),
    )


def pod_from_template(owner: Obj, reference: Obj) -> Obj:
    template = owner["spec"].get("template") or {}
    metadata = template.get("metadata") or {}
    pod_metadata: Obj = {
        "generateName": f"{owner['metadata']['name']}-",
        "namespace": owner["metadata"]["namespace"],
        "labels": dict(metadata.get("labels") or {}),
        "ownerReferences": [reference],
    }
    if metadata.get("annotations"):
        pod_metadata["annotations"] = dict(metadata["annotations"])
    if metadata.get("finalizers"):
        pod_metadata["finalizers"] = list(metadata["finalizers"])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": pod_metadata,
        "spec": copy.deepcopy(template.get("spec") or {}),
    }


class ReplicaSetController:
    def __init__(self, context: ControllerContext, kind: Kind = REPLICA_SETS, *, workers: int = 5) -> None:
        self.context = context
        self.kind = kind
        self.workers = workers
        self.api_version = f"{context.profile.group(kind.group)}/v1" if kind.group else "v1"
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(kind.name, clock=context.clock)
        self.events = context.recorder(kind.component)
        self.expectations = Expectations(context.clock)
        self.owners: Informer = context.informers.informer(kind.group, "v1", kind.resource)
        self.pods: Informer = context.informers.informer("", "v1", "pods")
        enqueue = lambda obj: self.queue.add(key_of(obj))  # noqa: E731
        self.owners.add_handler(
            Handler(on_add=enqueue, on_update=lambda _old, new: enqueue(new), on_delete=self._owner_deleted)
        )
        self.pods.add_handler(Handler(on_add=self._pod_added, on_update=self._pod_updated, on_delete=self._pod_deleted))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=self.kind.name)

    # -- events -------------------------------------------------------------------------------
    def _owner_key(self, pod: Obj) -> str | None:
        """The key of the replica set controlling the pod, if it is one of ours that still exists."""
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != self.kind.kind:
            return None
        key = f"{pod['metadata']['namespace']}/{ref.get('name')}"
        owner = self.owners.get(key)
        return key if owner is not None and owner["metadata"].get("uid") == ref.get("uid") else None

    def _matching_owners(self, pod: Obj) -> list[str]:
        labels = pod["metadata"].get("labels") or {}
        owners = self.owners.by_index(NAMESPACE_INDEX, pod["metadata"]["namespace"])
        return [key_of(owner) for owner in owners if self.kind.selector(owner).matches(labels)]

    def _pod_added(self, pod: Obj) -> None:
        if pod["metadata"].get("deletionTimestamp"):
            self._pod_deleted(pod)
            return
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.creation_observed(key)
            self.queue.add(key)
        elif controller_of(pod) is None:
            for owner in self._matching_owners(pod):
                self.queue.add(owner)

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        if new["metadata"].get("deletionTimestamp") and not old["metadata"].get("deletionTimestamp"):
            self._pod_deleted(new)
            return
        keys = {self._owner_key(old), self._owner_key(new)} - {None}
        if controller_of(new) is None:
            keys.update(self._matching_owners(new))
        for key in keys:
            assert key is not None
            self.queue.add(key)
            owner = self.owners.get(key)
            min_ready = (owner or {}).get("spec", {}).get("minReadySeconds") or 0
            if min_ready and ready_since(new) is not None and ready_since(old) is None:
                self.queue.add_after(key, min_ready + 1)

    def _pod_deleted(self, pod: Obj) -> None:
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.deletion_observed(key, key_of(pod))
            self.queue.add(key)

    def _owner_deleted(self, owner: Obj) -> None:
        self.expectations.forget(key_of(owner))

    # -- sync ---------------------------------------------------------------------------------
    def _path(self, namespace: str, name: str = "", subresource: str = "") -> str:
        group = self.context.profile.group(self.kind.group) if self.kind.group else ""
        return resource_path(group, "v1", self.kind.resource, namespace=namespace, name=name, subresource=subresource)

    @staticmethod
    def _pod_path(pod: Obj) -> str:
        metadata = pod["metadata"]
        return resource_path("", "v1", "pods", namespace=metadata["namespace"], name=metadata["name"])

    async def sync(self, key: str) -> None:
        owner = self.owners.get(key)
        if owner is None:
            self.expectations.forget(key)
            return
        # Expectations before the pod cache, as upstream: a creation observed while claiming awaits
        # would otherwise count as seen though missing from `candidates`.
        satisfied = self.expectations.satisfied(key)
        namespace = owner["metadata"]["namespace"]
        candidates = [pod for pod in self.pods.by_index(NAMESPACE_INDEX, namespace) if is_active(pod)]
        reference = owner_reference(owner, self.api_version, self.kind.kind)
        pods = await claim(self.context.client, owner, candidates, self.kind.selector(owner), reference, self._pod_path)
        if satisfied and not owner["metadata"].get("deletionTimestamp"):
            await self._manage(key, owner, pods, reference)
        await self._update_status(owner, pods)

    async def _manage(self, key: str, owner: Obj, pods: list[Obj], reference: Obj) -> None:
        wanted = owner["spec"].get("replicas", 1)
        diff = len(pods) - wanted
        if diff < 0:
            count = min(-diff, BURST_REPLICAS)
            self.expectations.expect(key, adds=count)
            created, error = await self._create_in_batches(owner, reference, count)
            if created < count:
                self.expectations.creations_failed(key, count - created)
            if error is not None:
                raise error
        elif diff > 0:
            doomed = sorted(pods, key=deletion_rank)[: min(diff, BURST_REPLICAS)]
            self.expectations.expect(key, deletes={key_of(pod) for pod in doomed})
            await asyncio.gather(*(self._delete(key, owner, pod) for pod in doomed))

    async def _create_in_batches(self, owner: Obj, reference: Obj, count: int) -> tuple[int, BaseException | None]:
        """Create `count` pods in doubling batches; stop at the first batch with a failure, and say
        how many were made and what failed."""
        created, batch = 0, SLOW_START_INITIAL_BATCH
        path = resource_path("", "v1", "pods", namespace=owner["metadata"]["namespace"])
        while created < count:
            size = min(batch, count - created)
            results = await asyncio.gather(
                *(self.context.client.create(path, pod_from_template(owner, reference)) for _ in range(size)),
                return_exceptions=True,
            )
            failures = [result for result in results if isinstance(result, BaseException)]
            for result in results:
                await self._event_about(owner, result, "Create")
            created += size - len(failures)
            if failures:
                return created, failures[0]
            batch *= 2
        return created, None

    async def _delete(self, key: str, owner: Obj, pod: Obj) -> None:
        try:
            await self.context.client.delete(self._pod_path(pod))
        except ApiError as error:
            self.expectations.deletion_observed(key, key_of(pod))
            if error.reason != "NotFound":
                await self._event_about(owner, error, "Delete")
                raise
        else:
            await self._event_about(owner, pod, "Delete")

    async def _event_about(self, owner: Obj, result: object, action: str) -> None:
        await pod_events.record(self.events, owner, self.kind.kind, self.api_version, action, result)

    async def _update_status(self, owner: Obj, pods: list[Obj]) -> None:
        spec = owner["spec"]
        template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        now = self.context.clock.wall()
        min_ready = spec.get("minReadySeconds") or 0
        current = owner.get("status") or {}
        status: Obj = {
            "replicas": len(pods),
            "fullyLabeledReplicas": sum(
                1 for pod in pods if template_labels.items() <= (pod["metadata"].get("labels") or {}).items()
            ),
            "readyReplicas": sum(1 for pod in pods if ready_since(pod) is not None),
            "availableReplicas": sum(1 for pod in pods if is_available(pod, min_ready, now)),
            "observedGeneration": owner["metadata"].get("generation", 0),
        }
        if current.get("conditions"):
            status["conditions"] = current["conditions"]
        compared = {name: current.get(name, 0) for name in status if name != "conditions"}
        if compared == {name: value for name, value in status.items() if name != "conditions"}:
            return
        metadata = owner["metadata"]
        path = self._path(metadata["namespace"], metadata["name"], "status")
        try:
            await self.context.client.update(path, {**owner, "status": status})
        except ApiError as error:
            if error.reason not in ("Conflict", "NotFound"):
                raise
            self.queue.add(key_of(owner))
