"""What one object adds to the resources a ResourceQuota can limit, and whether a quota's scopes
select it (upstream's quota evaluators of `pkg/quota/v1/evaluator/core` and the generic object count).
One mechanism for both users: the API server's ResourceQuota admission charges a request's object,
the controller manager's resourcequota controller sums a namespace's objects.

Usage is a dict of quota resource name -> Quantity: object counts (`pods`, `count/pods`,
`count/deployments.apps`, ...), compute requests and limits of pods (`requests.cpu`, `cpu`,
`limits.memory`, `requests.<extended>`, hugepages), service load balancers and node ports, and claimed
storage (also per storage class).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from svc.machinery.quantity import Quantity, quantity_or_none

Obj = dict[str, Any]
Usage = dict[str, Quantity]

# Core resources counted under their bare name as well as `count/<name>`.
COUNTED = frozenset(
    {"pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "replicationcontrollers", "resourcequotas"}
)
_BARE_COMPUTE = ("cpu", "memory", "ephemeral-storage")
_ONE = Quantity(Decimal(1))
_PER_CLASS = (".storageclass.storage.k8s.io/requests.storage", ".storageclass.storage.k8s.io/persistentvolumeclaims")


def count_name(resource: str, group: str) -> str:
    return f"count/{resource}.{group}" if group else f"count/{resource}"


def usage(group: str, name: str, obj: Obj) -> Usage:
    """What `obj`, of resource `name` in API group `group` (upstream's group name), counts for."""
    result: Usage = {count_name(name, group): _ONE}
    if group:
        return result
    if name in COUNTED:
        result[name] = _ONE
    if name == "pods":
        result.update(_pod_usage(obj))
    elif name == "services":
        result.update(_service_usage(obj))
    elif name == "persistentvolumeclaims":
        result.update(_claim_usage(obj))
    return result


def _pod_usage(pod: Obj) -> Usage:
    result: Usage = {}
    spec = pod.get("spec") or {}
    names: set[str] = set()
    for field in ("containers", "initContainers"):
        for container in spec.get(field) or []:
            resources = container.get("resources") or {}
            names.update((resources.get("requests") or {}).keys(), (resources.get("limits") or {}).keys())
    for compute in sorted(names):
        request = pod_amount(pod, "requests", compute)
        limit = pod_amount(pod, "limits", compute)
        if request is not None:
            if compute in _BARE_COMPUTE or compute.startswith("hugepages-"):
                result[compute] = request
            if compute in _BARE_COMPUTE or compute.startswith("hugepages-") or "/" in compute:
                result["requests." + compute] = request
        if limit is not None and compute in _BARE_COMPUTE:
            result["limits." + compute] = limit
    return result


def _service_usage(service: Obj) -> Usage:
    spec = service.get("spec") or {}
    kind = spec.get("type") or "ClusterIP"
    result: Usage = {"services.loadbalancers": Quantity(Decimal(int(kind == "LoadBalancer")))}
    ports = len(spec.get("ports") or []) if kind in ("NodePort", "LoadBalancer") else 0
    result["services.nodeports"] = Quantity(Decimal(ports))
    return result


def _claim_usage(claim: Obj) -> Usage:
    spec = claim.get("spec") or {}
    result: Usage = {}
    storage = quantity_or_none(((spec.get("resources") or {}).get("requests") or {}).get("storage"))
    class_name = spec.get("storageClassName")
    if storage is not None:
        result["requests.storage"] = storage
    if class_name:
        prefix = f"{class_name}.storageclass.storage.k8s.io/"
        result[prefix + "persistentvolumeclaims"] = _ONE
        if storage is not None:
            result[prefix + "requests.storage"] = storage
    return result


def matches_scopes(quota: Obj, group: str, name: str, obj: Obj) -> bool:
    """Every scope of the quota (its `scopes` and `scopeSelector` expressions) selects the object;
    scopes select pods only."""
    spec = quota.get("spec") or {}
    selectors = [{"scopeName": scope, "operator": "Exists"} for scope in spec.get("scopes") or []]
    selectors += (spec.get("scopeSelector") or {}).get("matchExpressions") or []
    if not selectors:
        return True
    if group or name != "pods":
        return False
    return all(_pod_scope(selector, obj) for selector in selectors)


def _pod_scope(selector: Obj, pod: Obj) -> bool:
    spec = pod.get("spec") or {}
    scope = selector.get("scopeName")
    if scope == "Terminating":
        return spec.get("activeDeadlineSeconds") is not None and spec["activeDeadlineSeconds"] >= 0
    if scope == "NotTerminating":
        return spec.get("activeDeadlineSeconds") is None
    if scope == "BestEffort":
        return _best_effort(spec)
    if scope == "NotBestEffort":
        return not _best_effort(spec)
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(spec)
    if scope == "PriorityClass":
        name = spec.get("priorityClassName") or ""
        operator, values = selector.get("operator"), selector.get("values") or []
        if operator == "In":
            return name in values
        if operator == "NotIn":
            return name not in values
        if operator == "Exists":
            return bool(name)
        if operator == "DoesNotExist":
            return not name
    return False


def _best_effort(spec: Obj) -> bool:
    """No container requests or limits cpu or memory (upstream's BestEffort QoS class)."""
    for field in ("containers", "initContainers"):
        for container in spec.get(field) or []:
            resources = container.get("resources") or {}
            for kind in ("requests", "limits"):
                if any(name in ("cpu", "memory") for name in resources.get(kind) or {}):
                    return False
    return True


def _cross_namespace_affinity(spec: Obj) -> bool:
    affinity = spec.get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(kind) or {}
        required = terms.get("requiredDuringSchedulingIgnoredDuringExecution") or []
        preferred = [
            t.get("podAffinityTerm") or {} for t in terms.get("preferredDuringSchedulingIgnoredDuringExecution") or []
        ]
        for term in [*required, *preferred]:
            if term.get("namespaces") or term.get("namespaceSelector") is not None:
                return True
    return False


def tracks(name: str) -> bool:
    """Whether an evaluator measures the quota resource `name` (a `count/` name of a resource the
    server does not serve has none, but is only known by discovery: the caller checks)."""
    if name in COUNTED or name.startswith("count/") or name in _BARE_COMPUTE or name.startswith("hugepages-"):
        return True
    if name in ("services.loadbalancers", "services.nodeports", "requests.storage"):
        return True
    kind, _, compute = name.partition(".")
    if kind == "limits":
        return compute in _BARE_COMPUTE
    if kind == "requests":
        return compute in _BARE_COMPUTE or compute.startswith("hugepages-") or "/" in compute
    return name.endswith(
        (".storageclass.storage.k8s.io/requests.storage", ".storageclass.storage.k8s.io/persistentvolumeclaims")
    )


def counts_as_running(pod: Obj, now: float) -> bool:
    """Upstream's `QuotaV1Pod`: terminal pods and pods past deletion plus grace no longer count."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    metadata = pod.get("metadata") or {}
    deleted, grace = metadata.get("deletionTimestamp"), metadata.get("deletionGracePeriodSeconds")
    if deleted and grace is not None:
        deadline = datetime.fromisoformat(deleted.replace("Z", "+00:00")).timestamp() + grace
        return now <= deadline
    return True


def pod_amount(pod: Obj, kind: str, resource: str) -> Quantity | None:
    """A pod's effective request or limit: the larger of its containers' sum and any one init
    container's, plus its overhead (upstream's `PodRequests`/`PodLimits`)."""
    spec = pod.get("spec") or {}

    def amount(container: Obj) -> Quantity | None:
        return quantity_or_none(((container.get("resources") or {}).get(kind) or {}).get(resource))

    total = add_all(amount(c) for c in spec.get("containers") or [])
    for container in spec.get("initContainers") or []:
        init = amount(container)
        if init is not None and (total is None or init > total):
            total = init
    return add_all((total, quantity_or_none((spec.get("overhead") or {}).get(resource))))


def add_all(amounts: Iterable[Quantity | None]) -> Quantity | None:
    """The sum of the amounts present, None when none is."""
    present = [amount for amount in amounts if amount is not None]
    if not present:
        return None
    return Quantity(sum((amount.value for amount in present), Decimal(0)), present[0].format)
