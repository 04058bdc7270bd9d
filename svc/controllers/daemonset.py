"""The daemonset controller: one pod of a DaemonSet on every node that should run it.

Upstream `pkg/controller/daemon`:
- a node should run the daemon pod when the pod's node selector and required node affinity match it
  and its taints are tolerated (with the tolerations the controller adds to every daemon pod:
  not-ready and unreachable NoExecute, disk/memory/pid pressure and unschedulable NoSchedule);
- a missing pod is created pinned to its node by required node affinity on `metadata.name` (the
  scheduler binds it); pods on nodes that should not run one, surplus pods (the oldest is kept) and
  failed pods are deleted;
- the template's revision is a ControllerRevision; pods carry its hash, and a RollingUpdate replaces
  old pods while at most `maxUnavailable` daemon pods are unavailable (`OnDelete` leaves them);
- status: desired, current, misscheduled, ready, updated, available and unavailable counts.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import pod_events
from svc.controllers.context import ControllerContext
from svc.controllers.controller_ref import claim, controller_of, owned_by, owner_reference, selector_of
from svc.controllers.deployment_math import scaled_value
from svc.controllers.expectations import Expectations
from svc.controllers.history import HASH_LABEL, History, hash_of
from svc.controllers.replicaset import is_available, ready_since
from svc.machinery.node_affinity import node_affinity_matches, tolerates

NAME = "daemonset-controller"
Obj = dict[str, Any]

# What the controller adds to every daemon pod (upstream's `AddOrUpdateDaemonPodTolerations`).
DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)


def _hash_label(pod: Obj) -> str:
    return (pod["metadata"].get("labels") or {}).get(HASH_LABEL, "")


def _created(obj: Obj) -> str:
    return obj["metadata"].get("creationTimestamp", "")


class DaemonSetController:
    def __init__(self, context: ControllerContext, *, workers: int = 2) -> None:
        self.context = context
        self.workers = workers
        self.apps = context.profile.group("apps")
        self.events = context.recorder(NAME)
        self.label = context.profile.label
        self.history = History(context.client, self.apps)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.expectations = Expectations(context.clock)
        self.sets: Informer = context.informers.informer("apps", "v1", "daemonsets")
        self.pods: Informer = context.informers.informer("", "v1", "pods")
        self.nodes: Informer = context.informers.informer("", "v1", "nodes")
        self.revisions: Informer = context.informers.informer("apps", "v1", "controllerrevisions")
        enqueue = lambda obj: self.queue.add(key_of(obj))  # noqa: E731
        self.sets.add_handler(Handler(on_add=enqueue, on_update=lambda _old, new: enqueue(new)))
        self.pods.add_handler(
            Handler(
                on_add=self._pod_added, on_update=lambda _old, new: self._pod_changed(new), on_delete=self._pod_deleted
            )
        )
        every = lambda *_: self._enqueue_all()  # noqa: E731
        self.nodes.add_handler(Handler(on_add=every, on_update=every, on_delete=every))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    # -- events -------------------------------------------------------------------------------
    def _enqueue_all(self) -> None:
        for daemon in self.sets.list():
            self.queue.add(key_of(daemon))

    def _owner_key(self, pod: Obj) -> str | None:
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != "DaemonSet":
            return None
        return f"{pod['metadata']['namespace']}/{ref.get('name')}"

    def _pod_added(self, pod: Obj) -> None:
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.creation_observed(key)
            self.queue.add(key)

    def _pod_changed(self, pod: Obj) -> None:
        key = self._owner_key(pod)
        if key is None:
            return
        if pod["metadata"].get("deletionTimestamp"):
            self.expectations.deletion_observed(key, key_of(pod))
        self.queue.add(key)

    def _pod_deleted(self, pod: Obj) -> None:
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.deletion_observed(key, key_of(pod))
            self.queue.add(key)

    # -- decisions ----------------------------------------------------------------------------
    def _pod_template(self, daemon: Obj) -> Obj:
        template = copy.deepcopy(daemon["spec"].get("template") or {})
        spec = template.setdefault("spec", {})
        tolerations = list(spec.get("tolerations") or [])
        for key, effect in DAEMON_TOLERATIONS:
            key = self.label(key)
            if not any(t.get("key") == key and t.get("effect") == effect for t in tolerations):
                tolerations.append({"key": key, "operator": "Exists", "effect": effect})
        spec["tolerations"] = tolerations
        return template

    def should_run(self, daemon: Obj, node: Obj) -> bool:
        template = self._pod_template(daemon)
        pod = {"spec": template["spec"]}
        if not node_affinity_matches(pod, node):
            return False
        tolerations = template["spec"]["tolerations"]
        return all(
            tolerates(tolerations, taint)
            for taint in (node.get("spec") or {}).get("taints") or []
            if taint.get("effect") in ("NoSchedule", "NoExecute")
        )

    def _node_of(self, pod: Obj) -> str:
        """The node a daemon pod is for: bound, or pinned by its node affinity."""
        node = (pod.get("spec") or {}).get("nodeName")
        if node:
            return node
        terms = (((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution", {}
        ).get("nodeSelectorTerms") or []
        for term in terms:
            for field in term.get("matchFields") or []:
                if field.get("key") == "metadata.name" and field.get("operator") == "In" and field.get("values"):
                    return field["values"][0]
        return ""

    def _new_pod(self, daemon: Obj, node: str, revision_hash: str) -> Obj:
        template = self._pod_template(daemon)
        metadata = template.get("metadata") or {}
        spec = template["spec"]
        affinity = spec.setdefault("affinity", {})
        affinity["nodeAffinity"] = {
            **(affinity.get("nodeAffinity") or {}),
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]},
                ]
            },
        }
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "generateName": f"{daemon['metadata']['name']}-",
                "namespace": daemon["metadata"]["namespace"],
                "labels": {**(metadata.get("labels") or {}), HASH_LABEL: revision_hash},
                "annotations": dict(metadata.get("annotations") or {}),
                "ownerReferences": [owner_reference(daemon, f"{self.apps}/v1", "DaemonSet")],
            },
            "spec": spec,
        }

    # -- sync ---------------------------------------------------------------------------------
    async def sync(self, key: str) -> None:
        daemon = self.sets.get(key)
        if daemon is None:
            self.expectations.forget(key)
            return
        # Expectations before the pod cache, as upstream: a creation observed while this sync awaits
        # (claiming, recording history) would otherwise count as seen though missing from its pods.
        satisfied = self.expectations.satisfied(key)
        daemon = copy.deepcopy(daemon)
        namespace = daemon["metadata"]["namespace"]
        reference = owner_reference(daemon, f"{self.apps}/v1", "DaemonSet")
        pods = await claim(
            self.context.client,
            daemon,
            self.pods.by_index(NAMESPACE_INDEX, namespace),
            selector_of(daemon),
            reference,
            lambda pod: resource_path("", "v1", "pods", namespace=namespace, name=pod["metadata"]["name"]),
        )
        revisions = owned_by(self.revisions.by_index(NAMESPACE_INDEX, namespace), daemon)
        revision, collisions = await self.history.record(daemon, "DaemonSet", revisions)
        current_hash = hash_of(revision)
        by_node: dict[str, list[Obj]] = {}
        for pod in pods:
            if not pod["metadata"].get("deletionTimestamp"):
                by_node.setdefault(self._node_of(pod), []).append(pod)
        nodes = {node["metadata"]["name"]: node for node in self.nodes.list()}
        wanted = {name for name, node in nodes.items() if self.should_run(daemon, node)}
        if satisfied and not daemon["metadata"].get("deletionTimestamp"):
            await self._manage(key, daemon, by_node, wanted, current_hash)
        await self.history.truncate(
            daemon, revisions, {pod["metadata"].get("labels", {}).get(HASH_LABEL, "") for pod in pods} | {current_hash}
        )
        await self._update_status(daemon, by_node, wanted, current_hash, collisions)

    async def _manage(
        self, key: str, daemon: Obj, by_node: dict[str, list[Obj]], wanted: set[str], current: str
    ) -> None:
        creations: list[str] = []
        deletions: list[Obj] = []
        for node in wanted:
            pods = sorted(by_node.get(node, []), key=_created)
            failed = [p for p in pods if (p.get("status") or {}).get("phase") == "Failed"]
            deletions += failed
            running = [p for p in pods if p not in failed]
            if not running:
                creations.append(node)
            deletions += running[1:]
        for node, pods in by_node.items():
            if node not in wanted:
                deletions += pods
        deletions += self._rolling_deletions(daemon, by_node, wanted, current, {key_of(p) for p in deletions})
        self.expectations.expect(key, adds=len(creations), deletes={key_of(pod) for pod in deletions})
        path = resource_path("", "v1", "pods", namespace=daemon["metadata"]["namespace"])
        results = await asyncio.gather(
            *(self.context.client.create(path, self._new_pod(daemon, node, current)) for node in creations),
            *(self._delete(key, daemon, pod) for pod in deletions),
            return_exceptions=True,
        )
        for result in results[: len(creations)]:
            await pod_events.record(self.events, daemon, "DaemonSet", f"{self.apps}/v1", "Create", result)
        failures = [result for result in results[: len(creations)] if isinstance(result, BaseException)]
        if failures:
            self.expectations.creations_failed(key, len(failures))
        errors = [result for result in results if isinstance(result, BaseException)]
        if errors:
            raise errors[0]

    def _rolling_deletions(
        self, daemon: Obj, by_node: dict[str, list[Obj]], wanted: set[str], current: str, doomed: set[str]
    ) -> list[Obj]:
        """Old-revision pods to replace now, within `maxUnavailable` (upstream's rollingUpdate, surge 0)."""
        strategy = daemon["spec"].get("updateStrategy") or {}
        if (strategy.get("type") or "RollingUpdate") != "RollingUpdate":
            return []
        budget = scaled_value((strategy.get("rollingUpdate") or {}).get("maxUnavailable", 1), len(wanted), True) or 1
        now = self.context.clock.wall()
        min_ready = daemon["spec"].get("minReadySeconds") or 0
        unavailable = 0
        old_available: list[Obj] = []
        for node in sorted(wanted):
            pods = [p for p in by_node.get(node, []) if key_of(p) not in doomed]
            if not pods:
                unavailable += 1
                continue
            pod = pods[0]
            if not is_available(pod, min_ready, now):
                unavailable += 1
                if _hash_label(pod) != current:
                    old_available.insert(0, pod)  # an unavailable old pod is replaced first, at no cost
            elif _hash_label(pod) != current:
                old_available.append(pod)
        chosen = [p for p in old_available if not is_available(p, min_ready, now)]
        room = budget - unavailable
        chosen += [p for p in old_available if is_available(p, min_ready, now)][: max(room, 0)]
        return chosen

    async def _delete(self, key: str, daemon: Obj, pod: Obj) -> None:
        path = resource_path("", "v1", "pods", namespace=pod["metadata"]["namespace"], name=pod["metadata"]["name"])
        try:
            await self.context.client.delete(path)
        except ApiError as error:
            self.expectations.deletion_observed(key, key_of(pod))
            if error.reason != "NotFound":
                await pod_events.record(self.events, daemon, "DaemonSet", f"{self.apps}/v1", "Delete", error)
                raise
        else:
            await pod_events.record(self.events, daemon, "DaemonSet", f"{self.apps}/v1", "Delete", pod)

    async def _update_status(
        self, daemon: Obj, by_node: dict[str, list[Obj]], wanted: set[str], current: str, collisions: int
    ) -> None:
        now = self.context.clock.wall()
        min_ready = daemon["spec"].get("minReadySeconds") or 0
        scheduled = {node for node, pods in by_node.items() if pods and node}
        first = {node: sorted(pods, key=_created)[0] for node, pods in by_node.items() if pods}
        status: Obj = {
            "currentNumberScheduled": len(scheduled & wanted),
            "numberMisscheduled": len(scheduled - wanted),
            "desiredNumberScheduled": len(wanted),
            "numberReady": sum(1 for node in wanted if node in first and ready_since(first[node]) is not None),
            "observedGeneration": daemon["metadata"].get("generation", 0),
            "updatedNumberScheduled": sum(
                1
                for node in wanted
                if node in first and (first[node]["metadata"].get("labels") or {}).get(HASH_LABEL) == current
            ),
            "numberAvailable": sum(1 for node in wanted if node in first and is_available(first[node], min_ready, now)),
        }
        status["numberUnavailable"] = status["desiredNumberScheduled"] - status["numberAvailable"]
        if collisions:
            status["collisionCount"] = collisions
        old = daemon.get("status") or {}
        if all(old.get(name, 0) == value for name, value in status.items()):
            return
        metadata = daemon["metadata"]
        path = resource_path(
            self.apps, "v1", "daemonsets", namespace=metadata["namespace"], name=metadata["name"], subresource="status"
        )
        try:
            await self.context.client.update(path, {**daemon, "status": {**old, **status}})
        except ApiError as error:
            if error.reason not in ("Conflict", "NotFound"):
                raise
            self.queue.add(key_of(daemon))
        if min_ready and status["numberAvailable"] < status["numberReady"]:
            self.queue.add_after(key_of(daemon), min_ready + 1)
