"""A device's `nodeAllocatableResourceMappings` (DRANodeAllocatableResources, alpha in 1.36), as
upstream 1.36's `validateNodeAllocatableResourceMappings`: which node-allocatable resources (cpu,
memory, hugepages, ...) allocating the device takes from the node, per device or per unit of one of
the device's capacities. Extended resources are not node allocatable; the capacity named must be the
device's own.
"""

from __future__ import annotations

from typing import Any

from svc.api.validation.engine import mapping
from svc.api.validation.resources import is_native, quantity
from svc.machinery.field_errors import FieldError, invalid, not_found


def _mapping_errors(entry: Any, capacities: dict[str, Any], path: str) -> list[FieldError]:
    multiplier, key = (entry.get(name) for name in ("allocationMultiplier", "capacityKey"))
    if multiplier is None and key is None:
        return [invalid(path, "", "at least one of allocationMultiplier or capacityKey must be set")]
    errors: list[FieldError] = []
    parsed = quantity(multiplier) if isinstance(multiplier, str) else None
    if parsed is not None and parsed.value <= 0:
        errors.append(invalid(f"{path}.allocationMultiplier", str(parsed), "must be positive"))
    if key == "":
        errors.append(invalid(f"{path}.capacityKey", "", "capacityKey must not be an empty string"))
    elif key is not None and key not in capacities:
        errors.append(not_found(f"{path}.capacityKey", key))
    return errors


def node_allocatable_mapping_errors(device: Any, path: str) -> list[FieldError]:
    """Each mapped resource is a native one, and says how much of it a device (or capacity unit) takes."""
    capacities = mapping(device, "capacity")
    errors: list[FieldError] = []
    for name, entry in sorted(mapping(device, "nodeAllocatableResourceMappings").items()):
        where = f"{path}.nodeAllocatableResourceMappings[{name}]"
        if not is_native(name):
            errors.append(invalid(where, name, "must be a node allocatable resource name"))
        errors += _mapping_errors(entry if isinstance(entry, dict) else {}, capacities, where)
    return errors
