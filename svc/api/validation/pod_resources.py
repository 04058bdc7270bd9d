"""Pod-level resources (`spec.resources`, PodLevelResources: beta and on by default in 1.36), as
upstream's `validatePodResources` and `validatePodResourceConsistency`.

Only cpu, memory and hugepages may be set for the whole pod, and no claims; never for a Windows pod.
The pod's requests must cover what its containers request together (regular and sidecar containers
add up; an init container runs alone, next to the sidecars started before it), a pod-level hugepage
limit must cover the containers' aggregate limit, and no container's limit may pass the pod's. A
resource the pod does not request (or limit) itself is left to the containers: defaulting fills
pod-level requests from the containers wherever the pod sets limits.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.defaults.pod_resources import aggregate
from svc.api.validation.engine import items, join, lookup
from svc.api.validation.resources import quantity, requirements_errors, resource_name_errors
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported

POD_LEVEL_RESOURCES: Final = ("cpu", "hugepages-", "memory")
_HUGEPAGES: Final = "hugepages-"


def pod_resource_name_errors(name: str, path: str) -> list[FieldError]:
    """Upstream's `validatePodResourceName`: a valid resource name, and one of those a pod may hold."""
    errors = resource_name_errors(name, path)
    if errors or name in ("cpu", "memory") or name.startswith("hugepages-"):
        return errors
    return [not_supported(path, name, POD_LEVEL_RESOURCES)]


def _consistency(spec: Any, path: str) -> list[FieldError]:
    pod_requests = {k: quantity(v) for k, v in (lookup(spec, "resources.requests") or {}).items()}
    pod_limits = {k: quantity(v) for k, v in (lookup(spec, "resources.limits") or {}).items()}
    errors: list[FieldError] = []
    for name, needed in sorted(aggregate(spec, "requests").items()):
        requested = pod_requests.get(name)
        if requested is not None and requested < needed:
            detail = f"must be greater than or equal to aggregate container requests of {needed}"
            errors.append(invalid(f"{path}.requests[{name}]", str(requested), detail))
    for name, needed in sorted(aggregate(spec, "limits").items()):
        limit = pod_limits.get(name)
        if name.startswith(_HUGEPAGES) and limit is not None and limit < needed:
            detail = f"must be greater than or equal to aggregate container limits of {needed}"
            errors.append(invalid(f"{path}.limits[{name}]", str(limit), detail))
    for index, container in enumerate(items(lookup(spec, "containers"))):
        for name, raw in sorted((lookup(container, "resources.limits") or {}).items()):
            limit, pod_limit = quantity(raw), pod_limits.get(name)
            if limit is not None and pod_limit is not None and pod_limit < limit:
                where = f"{path}.containers[{index}][{name}].limits"
                errors.append(invalid(where, str(limit), f"must be less than or equal to pod limits of {pod_limit}"))
    return errors


def pod_resources_errors(spec: Any, base: str) -> list[FieldError]:
    resources = lookup(spec, "resources")
    if type(resources) is not dict:
        return []
    path = join(base, "resources")
    if lookup(spec, "os.name") == "windows":
        return [forbidden(path, "may not be set for a windows pod")]
    errors: list[FieldError] = []
    if resources.get("claims") is not None:
        errors.append(forbidden(f"{path}.claims", "claims may not be set for Resources at pod-level"))
    errors += requirements_errors(resources, path, pod_resource_name_errors)
    return errors + _consistency(spec, path)
