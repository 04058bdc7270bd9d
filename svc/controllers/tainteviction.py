"""The taint-eviction controller: pods on a node with NoExecute taints they do not tolerate are deleted.

Upstream `pkg/controller/tainteviction`: for each pod bound to a node with NoExecute taints, every taint
must be tolerated (the first matching toleration per taint counts) or the pod is deleted at once;
otherwise it is deleted after the smallest `tolerationSeconds` among those tolerations, counted from
when its deletion was first scheduled, and never when none of them bounds the time. A taint lifted or
a pod gone cancels the deletion (a node gone does not: its pods go as scheduled, as upstream's). The
pod gets upstream's Normal `TaintManagerEviction` events, "Cancelling deletion of Pod <ns>/<name>" when
a scheduled deletion is cancelled and "Marking for deletion Pod <ns>/<name>" when it is carried out,
then the `DisruptionTarget` condition (`DeletionByTaintManager`) before it is deleted.
"""

from __future__ import annotations

from dataclasses import dataclass

from svc.client.aio import ApiError, resource_path
from svc.client.events import NORMAL
from svc.client.informer import Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.deployment_math import rfc3339
from svc.controllers.node_health import Obj
from svc.machinery.node_affinity import tolerates

NAME = "taint-eviction-controller"
REASON = "TaintManagerEviction"
DISRUPTION_TARGET = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "DeletionByTaintManager",
    "message": "Taint manager: deleting due to NoExecute taint",
}


def no_execute_taints(node: Obj | None) -> list[Obj]:
    return [t for t in ((node or {}).get("spec") or {}).get("taints") or [] if t.get("effect") == "NoExecute"]


def toleration_limit(taints: list[Obj], tolerations: list[Obj]) -> float | None:
    """Seconds the pod may stay: 0 when a taint is not tolerated, None when it may stay forever."""
    used = []
    for taint in taints:
        match = next((t for t in tolerations if tolerates([t], taint)), None)
        if match is None:
            return 0.0
        used.append(match)
    bounds = [t["tolerationSeconds"] for t in used if t.get("tolerationSeconds") is not None]
    if not bounds:
        return None
    return float(max(0, min(bounds)))


@dataclass
class Scheduled:
    start: float
    trigger: float


class TaintEvictionController:
    def __init__(self, context: ControllerContext, *, workers: int = 8) -> None:
        self.context = context
        self.workers = workers
        self.events = context.recorder(NAME)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.scheduled: dict[str, Scheduled] = {}
        self.cancelled: set[str] = set()
        self.nodes = context.informers.informer("", "v1", "nodes")
        self.pods = context.informers.informer("", "v1", "pods")
        self.nodes.add_handler(Handler(on_add=self._node_changed, on_update=self._node_updated))
        self.pods.add_handler(
            Handler(
                on_add=self._pod_changed,
                on_update=self._pod_updated,
                on_delete=lambda pod: self._cancel(key_of(pod)),
            )
        )

    def _node_changed(self, node: Obj) -> None:
        name = node["metadata"]["name"]
        taints = no_execute_taints(node)
        for pod in self.pods.list():
            if (pod.get("spec") or {}).get("nodeName") == name:
                self._process(pod, taints)

    def _node_updated(self, old: Obj, node: Obj) -> None:
        """Only a change of its NoExecute taints matters, as upstream's `NodeUpdated`."""
        if no_execute_taints(old) != no_execute_taints(node):
            self._node_changed(node)

    def _pod_updated(self, old: Obj, pod: Obj) -> None:
        """Only a change of its tolerations or its node matters, as upstream's `PodUpdated`."""
        old_spec, spec = old.get("spec") or {}, pod.get("spec") or {}
        if (old_spec.get("tolerations"), old_spec.get("nodeName")) != (spec.get("tolerations"), spec.get("nodeName")):
            self._pod_changed(pod)

    def _pod_changed(self, pod: Obj) -> None:
        """Only pods on a node with NoExecute taints are looked at: a node whose taints went (or which
        went) has cancelled or kept their deletions already, as upstream's `handlePodUpdate`."""
        node_name = (pod.get("spec") or {}).get("nodeName")
        taints = no_execute_taints(self.nodes.get(node_name)) if node_name else []
        if taints:
            self._process(pod, taints)

    def _process(self, pod: Obj, taints: list[Obj]) -> None:
        key = key_of(pod)
        limit = toleration_limit(taints, (pod.get("spec") or {}).get("tolerations") or []) if taints else None
        if limit is None:
            self._cancel(key)
            return
        now = self.context.clock.now()
        start = now
        current = self.scheduled.get(key)
        if current is not None:
            if limit > 0:
                if current.start + limit < now + limit:
                    return
                start = current.start
            self._cancel(key)
        self.scheduled[key] = Scheduled(start, start + limit)
        self.queue.add_after(key, max(0.0, start + limit - now))

    def _cancel(self, key: str) -> None:
        """Upstream's `cancelWorkWithEvent`; a worker sends the event (handlers must not wait on the
        API server)."""
        if self.scheduled.pop(key, None) is not None:
            self.cancelled.add(key)
            self.queue.add(key)

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        if key in self.cancelled:
            self.cancelled.discard(key)
            await self._event(key, f"Cancelling deletion of Pod {key}")
        due = self.scheduled.get(key)
        if due is None or self.context.clock.now() < due.trigger:
            return
        del self.scheduled[key]
        await self._event(key, f"Marking for deletion Pod {key}")
        pod = self.pods.get(key)
        if pod is None:
            return
        metadata = pod["metadata"]
        namespace, name = metadata.get("namespace", ""), metadata["name"]
        status = dict(pod.get("status") or {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "DisruptionTarget"]
        conditions.append({**DISRUPTION_TARGET, "lastTransitionTime": rfc3339(self.context.clock.wall())})
        try:
            await self.context.client.update(
                resource_path("", "v1", "pods", namespace=namespace, name=name, subresource="status"),
                {**pod, "status": {**status, "conditions": conditions}},
            )
            await self.context.client.delete(resource_path("", "v1", "pods", namespace=namespace, name=name))
        except ApiError as error:
            if error.reason != "NotFound":
                self.scheduled[key] = due
                raise

    async def _event(self, key: str, message: str) -> None:
        namespace, _, name = key.partition("/")
        await self.events.event(
            {"metadata": {"name": name, "namespace": namespace}}, "Pod", "v1", NORMAL, REASON, message
        )
