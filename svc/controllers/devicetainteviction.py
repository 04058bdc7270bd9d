"""The device-taint-eviction-controller: pods using a DRA device with a NoExecute taint they do not
tolerate are evicted, like the taint-eviction controller does for node taints.

Upstream `pkg/controller/devicetainteviction` (gate DRADeviceTaints, beta and on): a claim's devices
are looked up in the newest generation of their pool's ResourceSlices; each NoExecute taint of such a
device evicts the claim's pods at its `timeAdded`, unless the allocation result tolerates it (a
toleration with effect NoExecute): without `tolerationSeconds` never, with it that many seconds later
(the smallest of them). A scheduled pod is evicted at the earliest time over the allocated claims
reserved for it. A taint lifted, a toleration added or the pod gone cancels the eviction
(`DeviceTaintManagerEviction` `Cancelling deletion`); at the time the pod gets the `DisruptionTarget`
condition (`DeletionByDeviceTaintManager`), an event (`Marking for deletion`) and is deleted with its
UID as precondition. DeviceTaintRules, which taint devices from outside, need the DRADeviceTaintRules
gate (beta, off) and are not consulted here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.events import NORMAL
from svc.client.informer import Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.deployment_math import rfc3339
from svc.controllers.node_health import parse_time
from svc.machinery.node_affinity import tolerates

NAME = "device-taint-eviction-controller"
GATE = "DRADeviceTaints"
GROUP = "resource.k8s.io"
REASON = "DeviceTaintManagerEviction"
DISRUPTION_TARGET = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "DeletionByDeviceTaintManager",
    "message": "Device Taint manager: deleting due to NoExecute taint",
}
Obj = dict[str, Any]


@dataclass(frozen=True)
class Eviction:
    when: float
    uid: str


def claim_eviction_time(claim: Obj, device_of: Any, now: float) -> float | None:
    """The earliest time a NoExecute taint of an allocated device evicts the claim's users, or None."""
    when: float | None = None
    for result in ((claim.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results") or []:
        device = device_of(result.get("driver", ""), result.get("pool", ""), result.get("device", ""))
        for taint in (device or {}).get("taints") or []:
            if taint.get("effect") != "NoExecute":
                continue
            added = parse_time(taint["timeAdded"]) if taint.get("timeAdded") else now
            matching = [
                toleration
                for toleration in result.get("tolerations") or []
                if toleration.get("effect") == "NoExecute" and tolerates([toleration], taint)
            ]
            if any(toleration.get("tolerationSeconds") is None for toleration in matching):
                continue
            if matching:
                added += max(0, min(int(toleration["tolerationSeconds"]) for toleration in matching))
            when = added if when is None else min(when, added)
    return when


class DeviceTaintEvictionController:
    def __init__(self, context: ControllerContext, *, workers: int = 8) -> None:
        self.context = context
        self.workers = workers
        self.events = context.recorder(NAME)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.scheduled: dict[str, Eviction] = {}
        self.cancelled: dict[str, Obj] = {}
        self.pods = context.informers.informer("", "v1", "pods")
        self.claims = context.informers.informer(GROUP, "v1", "resourceclaims")
        self.slices = context.informers.informer(GROUP, "v1", "resourceslices")
        self.pods.add_handler(Handler(on_add=self.handle_pod, on_update=self._pod_updated, on_delete=self._pod_deleted))
        self.claims.add_handler(
            Handler(
                on_add=self._claim_changed,
                on_update=lambda old, new: (self._claim_changed(old), self._claim_changed(new)),
                on_delete=self._claim_changed,
            )
        )
        self.slices.add_handler(
            Handler(
                on_add=self._slice_changed,
                on_update=lambda _old, new: self._slice_changed(new),
                on_delete=self._slice_changed,
            )
        )

    # -- the devices ---------------------------------------------------------------------------

    def device(self, driver: str, pool: str, name: str) -> Obj | None:
        """The device in the newest generation of its pool's slices."""
        slices = [
            s
            for s in self.slices.list()
            if (s.get("spec") or {}).get("driver") == driver and s["spec"].get("pool", {}).get("name") == pool
        ]
        if not slices:
            return None
        newest = max(s["spec"]["pool"].get("generation", 0) for s in slices)
        for s in slices:
            if s["spec"]["pool"].get("generation", 0) == newest:
                for device in s["spec"].get("devices") or []:
                    if device.get("name") == name:
                        return device
        return None

    def pod_eviction_time(self, pod: Obj) -> float | None:
        """The earliest eviction over the allocated claims reserved for the scheduled pod, or None."""
        if not (pod.get("spec") or {}).get("nodeName"):
            return None
        namespace, uid = pod["metadata"].get("namespace", ""), pod["metadata"].get("uid")
        generated = {
            s.get("name"): s.get("resourceClaimName")
            for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []
        }
        now = self.context.clock.wall()
        when: float | None = None
        for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
            name = entry.get("resourceClaimName") or generated.get(entry.get("name"))
            claim = self.claims.get(f"{namespace}/{name}") if name else None
            if claim is None or not (claim.get("status") or {}).get("allocation"):
                continue
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            if not any(ref.get("resource") == "pods" and ref.get("uid") == uid for ref in reserved):
                continue
            claim_when = claim_eviction_time(claim, self.device, now)
            if claim_when is not None:
                when = claim_when if when is None else min(when, claim_when)
        return when

    # -- what changed ----------------------------------------------------------------------------

    def handle_pod(self, pod: Obj) -> None:
        key = key_of(pod)
        when = self.pod_eviction_time(pod)
        if when is None:
            if self.scheduled.pop(key, None) is not None:
                # the event is sent by a worker: handlers must not wait on the API server
                self.cancelled[key] = pod["metadata"]
                self.queue.add(key)
            return
        self.scheduled[key] = Eviction(when, pod["metadata"].get("uid", ""))
        self.queue.add_after(key, max(0.0, when - self.context.clock.wall()))

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        """Only a binding or a change of the pod's claims matters (not the condition added here)."""
        same_node = (old.get("spec") or {}).get("nodeName") == (new.get("spec") or {}).get("nodeName")
        claims = [(pod.get("status") or {}).get("resourceClaimStatuses") for pod in (old, new)]
        if not same_node or claims[0] != claims[1]:
            self.handle_pod(new)

    def _pod_deleted(self, pod: Obj) -> None:
        self.scheduled.pop(key_of(pod), None)

    def _claim_changed(self, claim: Obj) -> None:
        namespace = claim["metadata"].get("namespace", "")
        for ref in (claim.get("status") or {}).get("reservedFor") or []:
            pod = self.pods.get(f"{namespace}/{ref.get('name')}") if ref.get("resource") == "pods" else None
            if pod is not None and pod["metadata"].get("uid") == ref.get("uid"):
                self.handle_pod(pod)

    def _slice_changed(self, changed: Obj) -> None:
        spec = changed.get("spec") or {}
        pool = (spec.get("driver"), (spec.get("pool") or {}).get("name"))
        for claim in self.claims.list():
            results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []
            if any((result.get("driver"), result.get("pool")) == pool for result in results):
                self._claim_changed(claim)

    # -- eviction --------------------------------------------------------------------------------

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        cancelled = self.cancelled.pop(key, None)
        if cancelled is not None:
            await self._event(cancelled, "Cancelling deletion")
        eviction = self.scheduled.get(key)
        if eviction is None:
            return
        wait = eviction.when - self.context.clock.wall()
        if wait > 0:
            self.queue.add_after(key, wait)
            return
        namespace, _, name = key.partition("/")
        path = resource_path("", "v1", "pods", namespace=namespace, name=name)
        try:
            pod = await self.context.client.get(path)
            if pod["metadata"].get("uid") != eviction.uid or pod["metadata"].get("deletionTimestamp"):
                self.scheduled.pop(key, None)
                return
            await self._event(pod["metadata"], "Marking for deletion")
            status = dict(pod.get("status") or {})
            conditions = [c for c in status.get("conditions") or [] if c.get("type") != "DisruptionTarget"]
            conditions.append({**DISRUPTION_TARGET, "lastTransitionTime": rfc3339(self.context.clock.wall())})
            await self.context.client.update(
                resource_path("", "v1", "pods", namespace=namespace, name=name, subresource="status"),
                {**pod, "status": {**status, "conditions": conditions}},
            )
            await self.context.client.delete(path, {"preconditions": {"uid": eviction.uid}})
        except ApiError as error:
            if error.reason not in ("NotFound", "Conflict"):
                raise
        self.scheduled.pop(key, None)

    async def _event(self, metadata: Obj, message: str) -> None:
        ref = {"metadata": {k: metadata.get(k) for k in ("name", "namespace", "uid")}}
        await self.events.event(ref, "Pod", "v1", NORMAL, REASON, message)
