"""Evicting a pod (`pods/eviction`): a delete that a PodDisruptionBudget may refuse.

Upstream's `EvictionREST.Create`: a pod that is Pending, finished or already terminating is deleted
without looking at budgets; otherwise the one budget that selects the pod must allow a disruption,
which the eviction takes (decrementing `status.disruptionsAllowed` and recording the pod under
`status.disruptedPods`) before deleting. A pod that is not Ready may be evicted without taking a
disruption when the budget's `unhealthyPodEvictionPolicy` allows it. The budget's status is kept by
the disruption controller; until it has observed the budget's generation, evictions are refused.
Before the delete, the pod's status gets the `DisruptionTarget` condition (`EvictionByEvictionAPI`).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from svc.machinery import status
from svc.machinery.labels import SelectorError, label_selector_from_dict
from svc.registry.actions import ActionRequest
from svc.registry.admission import NoAdmission
from svc.registry.create import now_rfc3339
from svc.registry.delete import check_preconditions
from svc.registry.options import DeleteOptions, ListOptions, Preconditions, WriteOptions
from svc.registry.store import GenericStore

Obj = dict[str, Any]
# Upstream's bound on status.disruptedPods: past it the controller is too far behind to trust.
MAX_DISRUPTED_PODS = 2000
_BUDGET = status.GroupResource("policy", "poddisruptionbudget")
_REFUSED = "Cannot evict pod as it would violate the pod's disruption budget."


def can_ignore_budget(pod: Obj) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool(pod["metadata"].get("deletionTimestamp"))


def is_ready(pod: Obj) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _selects(budget: Obj, labels: dict[str, str]) -> bool:
    try:
        return label_selector_from_dict((budget.get("spec") or {}).get("selector")).matches(labels)
    except SelectorError:
        return False


def _refused(why: str) -> status.StatusError:
    causes = [{"reason": "DisruptionBudget", "message": why}]
    return status.StatusError(429, "TooManyRequests", _REFUSED, {"causes": causes})


def take_disruption(budget: Obj, pod_name: str, when: str) -> Obj:
    """The budget with one disruption taken for `pod_name`, or the error upstream answers instead."""
    name = budget["metadata"]["name"]
    state = budget.get("status") or {}
    if state.get("observedGeneration", 0) < budget["metadata"].get("generation", 0):
        raise _refused(f"The disruption budget {name} is still being processed by the server.")
    allowed = state.get("disruptionsAllowed", 0)
    if allowed < 0:
        raise status.forbidden(_BUDGET, name, "pdb disruptions allowed is negative")
    if len(state.get("disruptedPods") or {}) > MAX_DISRUPTED_PODS:
        why = "DisruptedPods map too big - too many evictions not confirmed by PDB controller"
        raise status.forbidden(_BUDGET, name, why)
    if allowed == 0:
        needs, has = state.get("desiredHealthy", 0), state.get("currentHealthy", 0)
        raise _refused(f"The disruption budget {name} needs {needs} healthy pods and has {has} currently")
    budget = copy.deepcopy(budget)
    state = budget.setdefault("status", {})
    state["disruptionsAllowed"] = allowed - 1
    if allowed == 1:
        _insufficient_pods(state, when)
    state.setdefault("disruptedPods", {})[pod_name] = when
    return budget


def _insufficient_pods(state: Obj, when: str) -> None:
    condition = {
        "type": "DisruptionAllowed",
        "status": "False",
        "reason": "InsufficientPods",
        "message": "",
        "observedGeneration": state.get("observedGeneration", 0),
        "lastTransitionTime": when,
    }
    conditions = [c for c in state.get("conditions") or [] if c.get("type") != "DisruptionAllowed"]
    previous = next((c for c in state.get("conditions") or [] if c.get("type") == "DisruptionAllowed"), None)
    if previous is not None and previous.get("status") == "False":
        condition["lastTransitionTime"] = previous.get("lastTransitionTime", when)
    state["conditions"] = [*conditions, condition]


def _may_skip_budget(budget: Obj, pod: Obj) -> bool:
    """A pod that is not Ready is evicted without a disruption when the budget's policy says so."""
    if is_ready(pod):
        return False
    policy = (budget.get("spec") or {}).get("unhealthyPodEvictionPolicy") or "IfHealthyBudget"
    if policy == "AlwaysAllow":
        return True
    state = budget.get("status") or {}
    desired = state.get("desiredHealthy", 0)
    return desired > 0 and state.get("currentHealthy", 0) >= desired


async def evict(request: ActionRequest, delete_options: DeleteOptions) -> None:
    eviction = request.body
    name = (eviction.get("metadata") or {}).get("name") or ""
    if name != request.name:
        raise status.bad_request("name in URL does not match name in Eviction object")
    pods = request.store_for("", "pods")
    pod = await pods.get(request.namespace, name)
    if not can_ignore_budget(pod):
        budgets_store = request.store_for("policy", "poddisruptionbudgets")
        listed = await budgets_store.list(request.namespace, ListOptions())
        labels = pod["metadata"].get("labels") or {}
        budgets = [budget for budget in listed["items"] if _selects(budget, labels)]
        if len(budgets) > 1:
            message = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
            raise status.unconverted(message)
        if budgets and _may_skip_budget(budgets[0], pod):
            version = pod["metadata"]["resourceVersion"]
            preconditions = Preconditions(delete_options.preconditions.uid, version)
            delete_options = dataclasses.replace(delete_options, preconditions=preconditions)
        elif budgets:

            async def take(current: Obj | None) -> Obj:
                assert current is not None
                return take_disruption(current, name, now_rfc3339())

            options = WriteOptions(dry_run=request.dry_run, subresource="status")
            await budgets_store.update(
                request.namespace,
                budgets[0]["metadata"]["name"],
                take,
                admission=request.admission,
                user=request.user,
                options=options,
            )
    if not request.dry_run:
        delete_options = await _mark_disruption_target(request, pods, name, delete_options)
    # admitted as the Eviction's create already (upstream deletes the pod without admitting it again)
    await pods.delete(request.namespace, name, delete_options, admission=NoAdmission(), user=request.user)


async def _mark_disruption_target(
    request: ActionRequest, pods: GenericStore, name: str, delete_options: DeleteOptions
) -> DeleteOptions:
    """Upstream's `addConditionAndDeletePod`: the pod's status gets `DisruptionTarget` (reason
    `EvictionByEvictionAPI`) before it is deleted, written over the latest pod once the delete's
    preconditions hold; a resourceVersion precondition then names the version this write made."""

    async def append(current: Obj | None) -> Obj:
        assert current is not None
        check_preconditions(pods.strategy, current, delete_options)
        marked = copy.deepcopy(current)
        state = marked.setdefault("status", {})
        conditions = state.get("conditions") or []
        previous = next((c for c in conditions if c.get("type") == "DisruptionTarget"), None)
        changed = previous is None or previous.get("status") != "True"
        condition = {
            "type": "DisruptionTarget",
            "status": "True",
            "lastTransitionTime": now_rfc3339() if changed else previous.get("lastTransitionTime"),
            "reason": "EvictionByEvictionAPI",
            "message": "Eviction API: evicting",
        }
        state["conditions"] = (
            [condition if c is previous else c for c in conditions] if previous else [*conditions, condition]
        )
        return marked

    stored, _ = await pods.update(
        request.namespace,
        name,
        append,
        admission=NoAdmission(),
        user=request.user,
        options=WriteOptions(subresource="status"),
        allow_create=False,
    )
    if delete_options.preconditions.resource_version is None:
        return delete_options
    preconditions = Preconditions(delete_options.preconditions.uid, stored["metadata"]["resourceVersion"])
    return dataclasses.replace(delete_options, preconditions=preconditions)
