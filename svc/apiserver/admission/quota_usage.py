"""What one object adds to the resources a ResourceQuota can limit, and whether a quota's scopes
select it (upstream's quota evaluators of `pkg/quota/v1/evaluator/core` and the generic object count).

Usage is a dict of quota resource name -> Quantity: object counts (`pods`, `count/pods`,
`count/deployments.apps`, ...), compute requests and limits of pods (`requests.cpu`, `cpu`,
`limits.memory`, `requests.<extended>`, hugepages), service load balancers and node ports, and claimed
storage (also per storage class).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from svc.apiserver.admission.quantities import quantity
from svc.controllers.resourcequota import pod_amount
from svc.machinery.quantity import Quantity
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
Usage = dict[str, Quantity]

# Core resources counted under their bare name as well as `count/<name>`.
COUNTED = frozenset(
    {"pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "replicationcontrollers", "resourcequotas"}
)
_BARE_COMPUTE = ("cpu", "memory", "ephemeral-storage")
_ONE = Quantity(Decimal(1))


def count_name(resource: str, group: str) -> str:
    return f"count/{resource}.{group}" if group else f"count/{resource}"


def evaluates(attributes: Attributes) -> bool:
    """Whether quota looks at this request: any create of a namespaced resource, updates of services
    and claims (their usage can change), nothing on subresources."""
    if attributes.subresource or not attributes.namespace or not isinstance(attributes.object, dict):
        return False
    if attributes.operation is Operation.CREATE:
        return True
    resource = attributes.resource
    return (
        attributes.operation is Operation.UPDATE
        and resource.upstream_group == ""
        and resource.name in ("services", "persistentvolumeclaims")
    )


def usage(attributes: Attributes, obj: Obj) -> Usage:
    resource = attributes.resource
    group, name = resource.upstream_group, resource.name
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
    storage = quantity(((spec.get("resources") or {}).get("requests") or {}).get("storage"))
    class_name = spec.get("storageClassName")
    if storage is not None:
        result["requests.storage"] = storage
    if class_name:
        prefix = f"{class_name}.storageclass.storage.k8s.io/"
        result[prefix + "persistentvolumeclaims"] = _ONE
        if storage is not None:
            result[prefix + "requests.storage"] = storage
    return result


def matches_scopes(quota: Obj, attributes: Attributes, obj: Obj) -> bool:
    """Every scope of the quota (its `scopes` and `scopeSelector` expressions) selects the object;
    scopes select pods only."""
    spec = quota.get("spec") or {}
    selectors = [{"scopeName": scope, "operator": "Exists"} for scope in spec.get("scopes") or []]
    selectors += (spec.get("scopeSelector") or {}).get("matchExpressions") or []
    if not selectors:
        return True
    resource = attributes.resource
    if resource.upstream_group or resource.name != "pods":
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
