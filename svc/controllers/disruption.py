"""The disruption controller: a PodDisruptionBudget's status says how many of its pods may go.

Upstream `pkg/controller/disruption`. The budget's pods are those its selector matches in its
namespace. `minAvailable` as a number needs that many healthy pods out of the pods found; a
percentage, or `maxUnavailable`, is taken of the pods expected, which is the sum of the scales of
the pods' controllers (a ReplicaSet's owning Deployment counts instead of it), read from each
controller's `scale` subresource. A healthy pod is Ready, not being deleted, and not recently evicted
(the eviction subresource records it under `disruptedPods`, trusted for two minutes).
`disruptionsAllowed` is healthy minus desired, never negative and zero while no pod is expected;
the `DisruptionAllowed` condition and `observedGeneration` follow. Upstream's Events (source
`controllermanager`) say what the budget cannot see: `NoPods` when its selector matches nothing,
`UnmanagedPods` when a percentage or `maxUnavailable` meets pods without a controller (they are left
out of the expected count), and `CalculateExpectedPodCountFailed` when a pod's controller cannot be
found, is of a kind the server does not serve, or has no `scale` subresource, in which case the
budget fails safe: no disruptions, reason `SyncFailed`, the message saying which.
"""

from __future__ import annotations

import asyncio
from typing import Any

from svc.api.columns.selectors import selector_struct_string
from svc.client.aio import ApiError, resource_path
from svc.client.discovery import ApiResource, server_resources
from svc.client.events import NORMAL, WARNING
from svc.client.informer import NAMESPACE_INDEX, Handler, key_of
from svc.client.workers import RequeueAfter, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.controller_ref import controller_of
from svc.controllers.deployment_math import rfc3339, scaled_value
from svc.controllers.node_health import parse_time
from svc.machinery.labels import SelectorError, label_selector_from_dict

NAME = "disruption-controller"
COMPONENT = "controllermanager"
DELETION_TIMEOUT = 120.0
STALE_DISRUPTION_TIMEOUT = 120.0

Obj = dict[str, Any]


class CountFailed(Exception):
    """Why the pods a budget expects cannot be counted, in upstream's words."""


def is_ready(pod: Obj) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def selected_pods(budget: Obj, pods: list[Obj]) -> list[Obj]:
    selector = (budget.get("spec") or {}).get("selector")
    if selector is None:
        return []
    try:
        parsed = label_selector_from_dict(selector)
    except SelectorError:
        return []
    return [pod for pod in pods if parsed.matches(pod["metadata"].get("labels") or {})]


def disrupted_pods(budget: Obj, pods: list[Obj], wall: float) -> tuple[dict[str, str], float | None, list[Obj]]:
    """The recorded evictions still awaited (pod present, not yet deleting, under two minutes old),
    when the earliest of them expires, and the pods whose eviction expired without a deletion."""
    recorded = (budget.get("status") or {}).get("disruptedPods") or {}
    kept: dict[str, str] = {}
    recheck: float | None = None
    overdue: list[Obj] = []
    for pod in pods:
        name = pod["metadata"]["name"]
        if pod["metadata"].get("deletionTimestamp") or name not in recorded:
            continue
        expires = parse_time(recorded[name]) + DELETION_TIMEOUT
        if expires >= wall:
            kept[name] = recorded[name]
            recheck = expires if recheck is None else min(recheck, expires)
        else:
            overdue.append(pod)
    return kept, recheck, overdue


def stale_disruption_wait(pod: Obj, wall: float) -> float | None:
    """Upstream's `nonTerminatingPodHasStaleDisruptionCondition`: None when the pod has no
    DisruptionTarget condition that could go stale (it is deleting, finished, or the kubelet set it),
    else how long until it is stale."""
    status = pod.get("status") or {}
    if pod["metadata"].get("deletionTimestamp") or status.get("phase") in ("Succeeded", "Failed"):
        return None
    condition = next((c for c in status.get("conditions") or [] if c.get("type") == "DisruptionTarget"), None)
    if condition is None or condition.get("status") != "True" or condition.get("reason") == "TerminationByKubelet":
        return None
    since = condition.get("lastTransitionTime")
    return max(0.0, (parse_time(since) if since else wall) + STALE_DISRUPTION_TIMEOUT - wall)


def count_healthy(pods: list[Obj], disrupted: dict[str, str]) -> int:
    return sum(
        1
        for pod in pods
        if not pod["metadata"].get("deletionTimestamp") and pod["metadata"]["name"] not in disrupted and is_ready(pod)
    )


def allowed_condition(previous: list[Obj], allowed: int, generation: int, wall: float, message: str = "") -> list[Obj]:
    """Upstream's `SetStatusCondition` of `DisruptionAllowed`: the transition time moves only when the
    status does."""
    status, reason = ("True", "SufficientPods") if allowed > 0 else ("False", "InsufficientPods")
    if message:
        reason = "SyncFailed"
    old = next((c for c in previous if c.get("type") == "DisruptionAllowed"), None)
    since = (
        old["lastTransitionTime"]
        if old and old.get("status") == status and old.get("lastTransitionTime")
        else rfc3339(wall)
    )
    condition = {
        "type": "DisruptionAllowed",
        "status": status,
        "observedGeneration": generation,
        "lastTransitionTime": since,
        "reason": reason,
        "message": message,
    }
    return [c for c in previous if c.get("type") != "DisruptionAllowed"] + [condition]


def unmanaged_message(budget: Obj) -> str:
    selector = (budget.get("spec") or {}).get("selector") or {}
    return (
        f"Pods selected by this PodDisruptionBudget (selector: {selector_struct_string(selector)}) were found "
        "to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in "
        'undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an '
        "integer value."
    )


class DisruptionController:
    def __init__(self, context: ControllerContext, *, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.events = context.recorder(COMPONENT)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.stale: RateLimitingQueue[str] = RateLimitingQueue("stale_pod_disruption", clock=context.clock)
        self.budgets = context.informers.informer("policy", "v1", "poddisruptionbudgets")
        self.pods = context.informers.informer("", "v1", "pods")
        self.budgets.add_handler(
            Handler(
                on_add=lambda budget: self.queue.add(key_of(budget)),
                on_update=lambda _old, budget: self.queue.add(key_of(budget)),
            )
        )
        self.pods.add_handler(
            Handler(
                on_add=self._pod_seen,
                on_update=lambda _old, pod: self._pod_seen(pod),
                on_delete=self._pod_changed,
            )
        )
        self._resources: list[ApiResource] | None = None

    def _pod_changed(self, pod: Obj) -> None:
        namespace = pod["metadata"].get("namespace", "")
        for budget in self.budgets.by_index(NAMESPACE_INDEX, namespace):
            if selected_pods(budget, [pod]):
                self.queue.add(key_of(budget))

    def _pod_seen(self, pod: Obj) -> None:
        self._pod_changed(pod)
        wait = stale_disruption_wait(pod, self.context.clock.wall())
        if wait is not None:
            self.stale.add_after(key_of(pod), wait)

    async def run(self) -> None:
        await asyncio.gather(
            run_workers(self.queue, self.sync, workers=self.workers, name=NAME),
            run_workers(self.stale, self.sync_stale_disruption, workers=1, name=f"{NAME}/stale"),
        )

    async def sync_stale_disruption(self, key: str) -> None:
        """Upstream's `syncStalePodDisruption`: a pod still not deleting two minutes after it was
        marked a disruption target gets the condition back to False."""
        pod = self.pods.get(key)
        if pod is None:
            return
        wait = stale_disruption_wait(pod, self.context.clock.wall())
        if wait is None:
            return
        if wait > 0:
            self.stale.add_after(key, wait)
            return
        status = dict(pod.get("status") or {})
        condition = {
            "type": "DisruptionTarget",
            "status": "False",
            "lastTransitionTime": rfc3339(self.context.clock.wall()),
        }
        status["conditions"] = [
            condition if c.get("type") == "DisruptionTarget" else c for c in status.get("conditions") or []
        ]
        namespace, name = pod["metadata"].get("namespace", ""), pod["metadata"]["name"]
        path = resource_path("", "v1", "pods", namespace=namespace, name=name, subresource="status")
        await self.context.client.update(path, {**pod, "status": status})

    async def sync(self, key: str) -> None:
        budget = self.budgets.get(key)
        if budget is None:
            return
        namespace = budget["metadata"].get("namespace", "")
        pods = selected_pods(budget, self.pods.by_index(NAMESPACE_INDEX, namespace))
        wall = self.context.clock.wall()
        if not pods:
            await self._event(budget, NORMAL, "NoPods", "No matching pods found")
        try:
            expected, desired, unmanaged = await self._expected(budget, pods)
        except CountFailed as error:
            message = f"Failed to calculate the number of expected pods: {error}"
            await self._event(budget, WARNING, "CalculateExpectedPodCountFailed", message)
            await self._fail_safe(budget, str(error), wall)
            return
        if unmanaged:
            await self._event(budget, WARNING, "UnmanagedPods", unmanaged_message(budget))
        disrupted, recheck, overdue = disrupted_pods(budget, pods, wall)
        for pod in overdue:
            # upstream's text names the budget's namespace twice
            message = f"Pod was expected by PDB {namespace}/{namespace} to be deleted but it wasn't"
            await self.events.event(pod, "Pod", "v1", WARNING, "NotDeleted", message)
        await self._update(budget, count_healthy(pods, disrupted), desired, expected, disrupted, wall)
        if recheck is not None:
            raise RequeueAfter(max(0.0, recheck - wall), "awaiting evicted pods")

    async def _expected(self, budget: Obj, pods: list[Obj]) -> tuple[int, int, list[str]]:
        """(expected pods, desired healthy pods, pods without a controller), upstream's
        `getExpectedPodCount`."""
        spec = budget.get("spec") or {}
        if spec.get("maxUnavailable") is not None:
            expected, unmanaged = await self._expected_scale(pods)
            return expected, max(0, expected - scaled_value(spec["maxUnavailable"], expected, True)), unmanaged
        minimum = spec.get("minAvailable")
        if isinstance(minimum, int):
            return len(pods), minimum, []
        if minimum is not None:
            expected, unmanaged = await self._expected_scale(pods)
            return expected, scaled_value(minimum, expected, True), unmanaged
        return 0, 0, []

    async def _expected_scale(self, pods: list[Obj]) -> tuple[int, list[str]]:
        scales: dict[str, int] = {}
        unmanaged: list[str] = []
        for pod in pods:
            ref = controller_of(pod)
            if ref is None:
                unmanaged.append(pod["metadata"]["name"])
                continue
            if ref.get("uid") in scales:
                continue
            owner = await self._scaled_owner(pod["metadata"].get("namespace", ""), ref)
            if owner is None:
                raise CountFailed(f'found no controllers for pod "{pod["metadata"]["name"]}"')
            scales.setdefault(owner[0], owner[1])
        return sum(scales.values()), unmanaged

    async def _scaled_owner(self, namespace: str, ref: Obj) -> tuple[str, int] | None:
        """(uid, replicas) of the controller whose scale governs pods of `ref`'s controller."""
        if ref.get("kind") == "ReplicaSet" and str(ref.get("apiVersion", "")).startswith("apps/"):
            try:
                replica_set = await self.context.client.get(
                    resource_path("apps", "v1", "replicasets", namespace=namespace, name=ref["name"])
                )
            except ApiError as error:
                if error.reason == "NotFound":
                    return None
                raise
            parent = controller_of(replica_set)
            if parent is not None and parent.get("kind") == "Deployment":
                ref = parent
        group, _, version = str(ref.get("apiVersion", "")).rpartition("/")
        kind = ref.get("kind", "")
        resource = await self._resource_of(group, version, kind)
        if resource is None:
            raise CountFailed(f'no matches for kind "{kind}" in version "{ref.get("apiVersion", "")}"')
        path = resource_path(
            group, version, resource.resource, namespace=namespace, name=ref.get("name", ""), subresource="scale"
        )
        try:
            scale = await self.context.client.get(path)
        except ApiError as error:
            if error.reason != "NotFound":
                raise
            if "scale" not in resource.subresources:
                raise CountFailed(f"{resource.group_resource} does not implement the scale subresource") from None
            return None
        if scale["metadata"].get("uid") != ref.get("uid"):
            return None
        return ref["uid"], (scale.get("spec") or {}).get("replicas") or 0

    async def _resource_of(self, group: str, version: str, kind: str) -> ApiResource | None:
        for attempt in range(2):
            if self._resources is None or attempt:
                self._resources = await server_resources(self.context.client, self.context.profile.discovery_group)
            for found in self._resources:
                if (found.group, found.version, found.kind) == (group, version, kind) and found.namespaced:
                    return found
        return None

    async def _update(
        self, budget: Obj, healthy: int, desired: int, expected: int, disrupted: dict[str, str], wall: float
    ) -> None:
        allowed = healthy - desired if expected > 0 and healthy > desired else 0
        generation = budget["metadata"].get("generation", 0)
        old = budget.get("status") or {}
        conditions = allowed_condition(old.get("conditions") or [], allowed, generation, wall)
        status = {
            "currentHealthy": healthy,
            "desiredHealthy": desired,
            "expectedPods": expected,
            "disruptionsAllowed": allowed,
            "observedGeneration": generation,
            "conditions": conditions,
        }
        if disrupted:
            status["disruptedPods"] = disrupted
        unchanged = {k: old.get(k, 0) for k in status if k not in ("conditions", "disruptedPods")} == {
            k: v for k, v in status.items() if k not in ("conditions", "disruptedPods")
        }
        if unchanged and (old.get("disruptedPods") or {}) == disrupted and self._conditions_current(old, allowed):
            return
        await self._write(budget, status)

    @staticmethod
    def _conditions_current(old: Obj, allowed: int) -> bool:
        condition = next((c for c in old.get("conditions") or [] if c.get("type") == "DisruptionAllowed"), None)
        if condition is None:
            return False
        if allowed > 0:
            return (condition.get("status"), condition.get("reason")) == ("True", "SufficientPods")
        return condition.get("status") == "False" and condition.get("reason") in ("InsufficientPods", "SyncFailed")

    async def _fail_safe(self, budget: Obj, message: str, wall: float) -> None:
        old = dict(budget.get("status") or {})
        generation = old.get("observedGeneration", 0)
        old["disruptionsAllowed"] = 0
        old["conditions"] = allowed_condition(old.get("conditions") or [], 0, generation, wall, message)
        await self._write(budget, old)

    async def _event(self, budget: Obj, event_type: str, reason: str, message: str) -> None:
        await self.events.event(budget, "PodDisruptionBudget", "policy/v1", event_type, reason, message)

    async def _write(self, budget: Obj, status: Obj) -> None:
        metadata = budget["metadata"]
        path = resource_path(
            "policy",
            "v1",
            "poddisruptionbudgets",
            namespace=metadata["namespace"],
            name=metadata["name"],
            subresource="status",
        )
        try:
            await self.context.client.update(path, {**budget, "status": status})
        except ApiError as error:
            if error.reason != "NotFound":
                raise
