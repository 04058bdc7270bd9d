"""LimitRanger: the LimitRanges of a namespace default and bound the resources of pods and claims.

Mutating: containers and init containers without a limit or request get the `default` and
`defaultRequest` of the `Container` items, and the pod says so in the `kubernetes.io/limit-ranger`
annotation. Validating: `min`, `max` and `maxLimitRequestRatio` per `Container` and per `Pod` (the sum
of the containers, at least any init container), `min`/`max` of a claim's storage request, with
upstream's messages. Pods are checked on create only (their containers' resources are immutable).
"""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.quantities import add, resource_list
from svc.apiserver.admission.registry import PluginContext
from svc.machinery.quantity import Quantity
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
Resources = dict[str, Quantity]
_CONTAINER_KINDS = (("containers", "container"), ("initContainers", "init container"))


class LimitRanger:
    resources = frozenset({("", "pods"), ("", "persistentvolumeclaims")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        self._annotation = context.profile.label("kubernetes.io/limit-ranger")

    def _kind(self, attributes: Attributes) -> str:
        """ "Pod" or "PersistentVolumeClaim" when this request is one the plugin handles, else ""."""
        if attributes.subresource or not isinstance(attributes.object, dict):
            return ""
        if targets(attributes, "", "pods"):
            return "Pod" if attributes.operation is Operation.CREATE else ""
        if targets(attributes, "", "persistentvolumeclaims"):
            return "PersistentVolumeClaim" if attributes.operation in (Operation.CREATE, Operation.UPDATE) else ""
        return ""

    async def admit(self, attributes: Attributes) -> None:
        if self._kind(attributes) != "Pod":
            return
        for limit_range in self._context.list("", "limitranges", attributes.namespace):
            self._default_pod(attributes.object or {}, limit_range)

    async def validate(self, attributes: Attributes) -> None:
        kind = self._kind(attributes)
        if not kind:
            return
        check = _check_pod if kind == "Pod" else _check_claim
        for limit_range in self._context.list("", "limitranges", attributes.namespace):
            errors = check(attributes.object or {}, (limit_range.get("spec") or {}).get("limits") or [])
            if errors:
                raise forbidden(attributes, errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")

    def _default_pod(self, pod: Obj, limit_range: Obj) -> None:
        limits: dict[str, Any] = {}
        requests: dict[str, Any] = {}
        for item in (limit_range.get("spec") or {}).get("limits") or []:
            if item.get("type") == "Container":
                requests.update(item.get("defaultRequest") or {})
                limits.update(item.get("default") or {})
        if not limits and not requests:
            return
        notes: list[str] = []
        spec = pod.get("spec") or {}
        for field, label in _CONTAINER_KINDS:
            for container in spec.get(field) or []:
                notes.extend(_merge(container, requests, limits, label))
        if notes:
            metadata = pod.setdefault("metadata", {})
            annotations = metadata.get("annotations") or {}
            metadata["annotations"] = {**annotations, self._annotation: "LimitRanger plugin set: " + "; ".join(notes)}


def _merge(container: Obj, requests: dict[str, Any], limits: dict[str, Any], label: str) -> list[str]:
    resources = container.setdefault("resources", {})
    notes = []
    for kind, defaults, word in (("requests", requests, "request"), ("limits", limits, "limit")):
        current = dict(resources.get(kind) or {})
        added = sorted(name for name in defaults if name not in current)
        if added:
            resources[kind] = {**current, **{name: defaults[name] for name in added}}
            notes.append(f"{', '.join(added)} {word} for {label} {container.get('name', '')}")
    return notes


def _check_pod(pod: Obj, items: list[Obj]) -> list[str]:
    spec = pod.get("spec") or {}
    errors: list[str] = []
    for item in items:
        kind = item.get("type")
        if kind == "Container":
            for field, _ in _CONTAINER_KINDS:
                for container in spec.get(field) or []:
                    resources = container.get("resources") or {}
                    requests, limits = resource_list(resources.get("requests")), resource_list(resources.get("limits"))
                    errors.extend(_bounds("Container", item, requests, limits))
        elif kind == "Pod":
            errors.extend(_bounds("Pod", item, _pod_total(spec, "requests"), _pod_total(spec, "limits")))
    return errors


def _check_claim(claim: Obj, items: list[Obj]) -> list[str]:
    requests = resource_list(((claim.get("spec") or {}).get("resources") or {}).get("requests"))
    errors: list[str] = []
    for item in items:
        if item.get("type") != "PersistentVolumeClaim":
            continue
        for name, enforced in sorted(resource_list(item.get("min")).items()):
            errors.extend(_min("PersistentVolumeClaim", name, enforced, requests, {}))
        for name, enforced in sorted(resource_list(item.get("max")).items()):
            request = requests.get(name)
            if request is None:
                errors.append(f"maximum {name} usage per PersistentVolumeClaim is {enforced}.  No request is specified")
            elif request > enforced:
                errors.append(f"maximum {name} usage per PersistentVolumeClaim is {enforced}, but request is {request}")
    return errors


def _pod_total(spec: Obj, kind: str) -> Resources:
    """Containers add up; an init container runs alone, so the pod needs at least the largest one."""
    totals: Resources = {}
    for container in spec.get("containers") or []:
        for name, value in resource_list((container.get("resources") or {}).get(kind)).items():
            totals[name] = add(totals.get(name), value) or value
    for container in spec.get("initContainers") or []:
        for name, value in resource_list((container.get("resources") or {}).get(kind)).items():
            if name not in totals or value > totals[name]:
                totals[name] = value
    return totals


def _bounds(kind: str, item: Obj, requests: Resources, limits: Resources) -> list[str]:
    errors: list[str] = []
    for field, check in (("min", _min), ("max", _max), ("maxLimitRequestRatio", _ratio)):
        for name, enforced in sorted(resource_list(item.get(field)).items()):
            errors.extend(check(kind, name, enforced, requests, limits))
    return errors


def _min(kind: str, name: str, enforced: Quantity, requests: Resources, limits: Resources) -> list[str]:
    request, limit = requests.get(name), limits.get(name)
    if request is None:
        return [f"minimum {name} usage per {kind} is {enforced}.  No request is specified"]
    if request < enforced:
        return [f"minimum {name} usage per {kind} is {enforced}, but request is {request}"]
    if limit is not None and limit < enforced:
        return [f"minimum {name} usage per {kind} is {enforced}, but limit is {limit}"]
    return []


def _max(kind: str, name: str, enforced: Quantity, requests: Resources, limits: Resources) -> list[str]:
    request, limit = requests.get(name), limits.get(name)
    if limit is None:
        return [f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"]
    if limit > enforced:
        return [f"maximum {name} usage per {kind} is {enforced}, but limit is {limit}"]
    if request is not None and request > enforced:
        return [f"maximum {name} usage per {kind} is {enforced}, but request is {request}"]
    return []


def _ratio(kind: str, name: str, enforced: Quantity, requests: Resources, limits: Resources) -> list[str]:
    request, limit = requests.get(name), limits.get(name)
    prefix = f"{name} max limit to request ratio per {kind} is {enforced}"
    if request is None or request.value == 0:
        return [f"{prefix}, but no request is specified or request is 0"]
    if limit is None or limit.value == 0:
        return [f"{prefix}, but no limit is specified or limit is 0"]
    ratio = limit.value / request.value
    if ratio > enforced.value:
        return [f"{prefix}, but provided ratio is {float(ratio):f}"]
    return []


def build(context: PluginContext) -> LimitRanger:
    return LimitRanger(context)
