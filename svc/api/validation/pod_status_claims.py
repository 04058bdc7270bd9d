"""What a pod's `/status` write reports about the node-allocatable resources (cpu, memory, ...) its
DRA claims hold, which the kubelet accounts like requests (upstream 1.36
`validateNodeAllocatableResourceClaimStatus`, DRANodeAllocatableResources).
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, lookup, mapping, text
from svc.api.validation.resources import is_native, quantity
from svc.machinery.field_errors import FieldError, invalid, required

_NODE_ALLOCATABLE: Final = "status.nodeAllocatableResourceClaimStatuses"


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
