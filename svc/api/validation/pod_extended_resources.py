"""A pod's `status.extendedResourceClaimStatus` (DRA-backed extended resources, gate `DRAExtendedResource`),
as upstream's `validatePodExtendedResourceClaimStatus` checks it on status writes: the scheduler's claim for
the pod's extended resources, and which container's request of which resource maps to which of its
device requests."""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, lookup, mapping, text
from svc.machinery.field_errors import FieldError, duplicate, invalid, required
from svc.machinery.validation import is_dns1123_label, is_dns1123_subdomain

PATH: Final = "status.extendedResourceClaimStatus"
_NO_CONTAINER: Final = "must match the name of an entry in spec.initContainers.name or spec.containers.name"
_NO_REQUEST: Final = (
    "must match the extended resource name of an entry in spec.initContainers.resources.requests or "
    "spec.containers.resources.requests"
)


def _containers(spec: Any) -> dict[str, Any]:
    """Init containers and containers by name (a container shadows an init container of the same name)."""
    found: dict[str, Any] = {}
    for kind in ("initContainers", "containers"):
        for container in items(lookup(spec, kind)):
            found[text(container, "name")] = container
    return found


def extended_resource_claim_status_errors(new: Any, _: Any, __: str) -> list[FieldError]:
    status = lookup(new, PATH)
    if type(status) is not dict:
        return []
    containers = _containers(lookup(new, "spec"))
    mappings_path = f"{PATH}.requestMappings"
    mappings = items(status.get("requestMappings"))
    errors: list[FieldError] = []
    if not mappings:
        errors.append(required(mappings_path, "at least one request mapping is required"))
    seen: set[tuple[str, str, str]] = set()
    for index, entry in enumerate(mappings):
        where = f"{mappings_path}[{index}]"
        container_name, resource = text(entry, "containerName"), text(entry, "resourceName")
        request = text(entry, "requestName")
        container = containers.get(container_name)
        if container is None:
            errors.append(invalid(f"{where}.containerName", container_name, _NO_CONTAINER))
        elif resource not in mapping(container, "resources.requests"):
            errors.append(invalid(f"{where}.resourceName", resource, _NO_REQUEST))
        # Upstream reports a bad request name at the status's own path, not the mapping's.
        errors += [invalid(f"{PATH}.requestName", request, message) for message in is_dns1123_label(request)]
        key = (container_name, resource, request)
        if key in seen:
            errors += [
                duplicate(f"{where}.containerName", container_name),
                duplicate(f"{where}.resourceName", resource),
                duplicate(f"{where}.requestName", request),
            ]
        seen.add(key)
    claim_name = text(status, "resourceClaimName")
    claim_path = f"{PATH}.resourceClaimName"
    if not claim_name:
        errors.append(required(claim_path, ""))
    else:
        errors += [invalid(claim_path, claim_name, message) for message in is_dns1123_subdomain(claim_name)]
    return errors
