"""Resource defaults that upstream gives Pods only, never pod templates.

A container (regular or init) with limits but no request for a resource requests its limit. Pod-level
resources (`spec.resources`, gate PodLevelResources, on by default in 1.36) are completed from the
containers: with pod-level limits or requests set, a missing pod-level hugepage limit takes the
containers' aggregate limit (unless a pod-level request for it exists); with pod-level limits set, a
missing pod-level cpu or memory request takes the containers' aggregate request, then any remaining
supported resource takes the pod-level limit. The aggregate is upstream's sidecar rule: regular and
restartable init containers add up; each other init container needs its own amount plus the sidecars
started before it; the pod needs the larger of the two.
"""

from __future__ import annotations

from typing import Final

from svc.api.defaults.quantities import as_quantity
from svc.api.defaults.walk import Obj, child, entries
from svc.machinery.quantity import Quantity

_POD_LEVEL: Final = frozenset({"cpu", "memory"})
_HUGEPAGES: Final = "hugepages-"

Amounts = dict[str, Quantity]


def requests_from_limits(spec: Obj) -> None:
    for key in ("containers", "initContainers"):
        for container in entries(spec, key):
            resources = child(container, "resources")
            limits = child(resources, "limits")
            if resources is None or limits is None:
                continue
            requests = resources.get("requests") or {}
            if not isinstance(requests, dict):
                continue
            missing = {name: value for name, value in limits.items() if name not in requests}
            if missing:
                resources["requests"] = {**requests, **missing}


def _is_hugepages(name: str) -> bool:
    return name.startswith(_HUGEPAGES)


def _is_pod_level(name: str) -> bool:
    return name in _POD_LEVEL or _is_hugepages(name)


def _amounts(container: Obj, field: str) -> Amounts:
    values = child(child(container, "resources"), field) or {}
    parsed = {name: as_quantity(value) for name, value in values.items()}
    return {name: quantity for name, quantity in parsed.items() if quantity is not None}


def _add(total: Amounts, more: Amounts) -> None:
    for name, quantity in more.items():
        current = total.get(name)
        if current is None:
            total[name] = quantity
        else:
            # The sum keeps the first operand's format unless that operand is zero (upstream's Add).
            form = quantity.format if not current.value else current.format
            total[name] = Quantity(current.value + quantity.value, form)


def _raise_to(peak: Amounts, candidate: Amounts) -> None:
    for name, quantity in candidate.items():
        if name not in peak or quantity > peak[name]:
            peak[name] = quantity


def aggregate(spec: Obj, field: str) -> Amounts:
    """The containers' combined `requests` or `limits`, by upstream's sidecar rule."""
    total: Amounts = {}
    for container in entries(spec, "containers"):
        _add(total, _amounts(container, field))
    sidecars: Amounts = {}
    peak: Amounts = {}
    for container in entries(spec, "initContainers"):
        own = _amounts(container, field)
        if container.get("restartPolicy") == "Always":
            _add(total, own)
            _add(sidecars, own)
            _raise_to(peak, sidecars)
        else:
            need = dict(own)
            _add(need, sidecars)
            _raise_to(peak, need)
    _raise_to(total, peak)
    return total


def _hugepage_limits(resources: Obj, spec: Obj) -> None:
    limits = child(resources, "limits") or {}
    requests = child(resources, "requests") or {}
    if not limits and not requests:
        return
    added = {
        name: quantity.canonical()
        for name, quantity in aggregate(spec, "limits").items()
        if _is_hugepages(name) and name not in requests and name not in limits
    }
    if added:
        resources["limits"] = {**limits, **added}


def _pod_requests(resources: Obj, spec: Obj) -> None:
    limits = child(resources, "limits")
    if not limits:
        return
    requests = dict(child(resources, "requests") or {})
    for name, quantity in aggregate(spec, "requests").items():
        if name not in requests and _is_pod_level(name) and not _is_hugepages(name):
            requests[name] = quantity.canonical()
    for name, value in limits.items():
        if name not in requests and _is_pod_level(name):
            requests[name] = value
    if requests:
        resources["requests"] = requests


def pod_level(spec: Obj) -> None:
    resources = child(spec, "resources")
    lists = (resources or {}).get("limits"), (resources or {}).get("requests")
    if resources is not None and all(isinstance(value, dict | None) for value in lists):
        _hugepage_limits(resources, spec)
        _pod_requests(resources, spec)
