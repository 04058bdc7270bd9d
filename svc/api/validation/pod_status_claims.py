"""What a pod's `/status` write reports about DRA claims made for it beyond `resourceClaimStatuses`
(upstream 1.36 `validatePodExtendedResourceClaimStatus` and `validateNodeAllocatableResourceClaimStatus`):
the claim the scheduler made for extended resources, and the node-allocatable resources (cpu, memory,
...) claims hold, which the kubelet accounts like requests.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, lookup, mapping, text
from svc.api.validation.resources import is_native, quantity
from svc.machinery.field_errors import FieldError, duplicate, invalid, required
from svc.machinery.validation import is_dns1123_label, is_dns1123_subdomain

_EXTENDED: Final = "status.extendedResourceClaimStatus"
_NODE_ALLOCATABLE: Final = "status.nodeAllocatableResourceClaimStatuses"
_UNKNOWN_RESOURCE: Final = (
    "must match the extended resource name of an entry in "
    "spec.initContainers.resources.requests or spec.containers.resources.requests"
)
_UNKNOWN_CONTAINER: Final = "must match the name of an entry in spec.initContainers.name or spec.containers.name"


def _mapping_errors(mappings: list[Any], containers: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[tuple[str, str, str]] = set()
    for index, entry in enumerate(mappings):
        at = f"{_EXTENDED}.requestMappings[{index}]"
        container, resource = text(entry, "containerName"), text(entry, "resourceName")
        request = text(entry, "requestName")
        if container not in containers:
            errors.append(invalid(f"{at}.containerName", container, _UNKNOWN_CONTAINER))
        elif resource not in mapping(containers[container], "resources.requests"):
            errors.append(invalid(f"{at}.resourceName", resource, _UNKNOWN_RESOURCE))
        # upstream names the request without the mapping's index
        errors += [invalid(f"{_EXTENDED}.requestName", request, message) for message in is_dns1123_label(request)]
        if (container, resource, request) in seen:
            errors += [
                duplicate(f"{at}.containerName", container),
                duplicate(f"{at}.resourceName", resource),
                duplicate(f"{at}.requestName", request),
            ]
        seen.add((container, resource, request))
    return errors


def extended_claim_errors(new: Any, _: Any, __: str) -> list[FieldError]:
    """The scheduler's claim for extended resources maps container requests to claim requests."""
    status = lookup(new, _EXTENDED)
    if not isinstance(status, dict):
        return []
    containers = {
        text(container, "name"): container
        for key in ("spec.initContainers", "spec.containers")
        for container in items(lookup(new, key))
    }
    mappings = items(status.get("requestMappings"))
    errors = [] if mappings else [required(f"{_EXTENDED}.requestMappings", "at least one request mapping is required")]
    errors += _mapping_errors(mappings, containers)
    claim = text(status, "resourceClaimName")
    if not claim:
        errors.append(required(f"{_EXTENDED}.resourceClaimName"))
    else:
        errors += [invalid(f"{_EXTENDED}.resourceClaimName", claim, m) for m in is_dns1123_subdomain(claim)]
    return errors


def _claim_names(new: Any) -> set[str]:
    """Claims the pod names directly, then those generated for it from templates."""
    return {
        name
        for key in ("spec.resourceClaims", "status.resourceClaimStatuses")
        for claim in items(lookup(new, key))
        if isinstance(name := lookup(claim, "resourceClaimName"), str)
    }


def node_allocatable_claim_errors(new: Any, _: Any, __: str) -> list[FieldError]:
    """Each report names a claim of the pod, the containers using it, and native resource amounts."""
    errors: list[FieldError] = []
    known = _claim_names(new)
    for index, entry in enumerate(items(lookup(new, _NODE_ALLOCATABLE))):
        at = f"{_NODE_ALLOCATABLE}[{index}]"
        claim = text(entry, "resourceClaimName")
        if not claim:
            errors.append(required(f"{at}.resourceClaimName", "must not be empty"))
        if claim not in known:
            errors.append(invalid(f"{at}.resourceClaimName", claim, "no mapping found in pod reference"))
        if not items(lookup(entry, "containers")):
            errors.append(required(f"{at}.containers", "must not be empty"))
        resources = mapping(entry, "resources")
        if not resources:
            errors.append(required(f"{at}.resources", "must not be empty"))
        for name, value in sorted(resources.items()):
            where = f"{at}.resources[{name}]"
            if not is_native(name):
                errors.append(invalid(where, name, "must be a node allocatable resource name"))
            parsed = quantity(value)
            if parsed is not None and parsed.value < 0:
                errors.append(invalid(where, str(parsed), "must be non-negative"))
    return errors
