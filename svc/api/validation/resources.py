"""Resource names and quantities, as upstream checks container resources, limit ranges and quotas.

Quantities arrive as the strings (or numbers) a client sent; one that does not parse was refused at
decode time, so an unparsable value here is skipped rather than reported twice.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any, Final

from svc.api.validation.engine import NEGATIVE
from svc.api.validation.known_valid import KnownValid
from svc.machinery.field_errors import FieldError, forbidden, invalid, required
from svc.machinery.quantity import Quantity, QuantityError, parse_quantity
from svc.machinery.validation import is_qualified_name

_STANDARD_CONTAINER: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
STANDARD: Final = _STANDARD_CONTAINER | {
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
}
_HUGEPAGES: Final = "hugepages-"
_NATIVE_DOMAIN: Final = "kubernetes.io/"
_INTEGER_RESOURCES: Final = frozenset({"pods", "services", "replicationcontrollers", "resourcequotas", "secrets"})


def quantity(value: Any) -> Quantity | None:
    return _parsed(value if isinstance(value, str) else str(value))


@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> Quantity | None:
    """Parsed once per distinct text: workloads repeat the same few quantities (and Quantity is read-only here)."""
    try:
        return parse_quantity(text)
    except (QuantityError, ValueError):
        return None


def is_native(name: str) -> bool:
    return "/" not in name or name.startswith(_NATIVE_DOMAIN) or name.split("/", 1)[0].endswith(".kubernetes.io")


def overcommit_allowed(name: str) -> bool:
    """Hugepages and extended resources must have requests equal to limits."""
    return is_native(name) and not name.startswith(_HUGEPAGES)


def _standard(name: str, names: frozenset[str]) -> bool:
    return name in names or name.startswith(_HUGEPAGES) or name.startswith("requests." + _HUGEPAGES)


@functools.lru_cache(maxsize=256)
def _name_messages(name: str) -> tuple[str, ...]:
    """Upstream's `validateResourceName`: a qualified name; without a domain, a standard resource."""
    messages = tuple(is_qualified_name(name))
    if messages:
        return messages
    if "/" not in name and not _standard(name, STANDARD):
        return ("must be a standard resource type or fully qualified",)
    return ()


@functools.lru_cache(maxsize=256)
def _container_name_messages(name: str) -> tuple[str, ...]:
    if "/" not in name and not _standard(name, _STANDARD_CONTAINER):
        return (*_name_messages(name), "must be a standard resource for containers")
    return _name_messages(name)


def resource_name_errors(name: str, path: str) -> list[FieldError]:
    return [invalid(path, name, message) for message in _name_messages(name)]


def container_resource_name_errors(name: str, path: str) -> list[FieldError]:
    return [invalid(path, name, message) for message in _container_name_messages(name)]


def quantity_errors(name: str, value: Quantity, path: str) -> list[FieldError]:
    """Upstream's `ValidateResourceQuantityValue`: never negative; whole numbers for countable resources."""
    errors = [invalid(path, str(value), NEGATIVE)] if value.value < 0 else []
    if name in _INTEGER_RESOURCES and value.value != value.value.to_integral_value():
        errors.append(invalid(path, str(value), "must be an integer"))
    return errors


def _page_divides(name: str, value: Quantity) -> bool:
    """Upstream's `IsHugePageResourceValueDivisible`: whole pages of a page size that is a whole number."""
    page = quantity(name.removeprefix(_HUGEPAGES))
    if page is None or page.value <= 0 or page.value != page.value.to_integral_value():
        return False
    return math.ceil(value.value) % int(page.value) == 0


def hugepage_value_errors(name: str, value: Quantity, path: str) -> list[FieldError]:
    """Upstream's `validateResourceQuantityHugePageValue` (refused unless the stored object already had one)."""
    if not name.startswith(_HUGEPAGES) or _page_divides(name, value):
        return []
    return [invalid(path, str(value), f"{value} is not positive integer multiple of {name}")]


_CPU_OR_MEMORY: Final = frozenset({"cpu", "memory"})


def _resource_list(node: Any) -> dict[str, Quantity]:
    if not isinstance(node, Mapping):
        return {}
    parsed = {str(name): quantity(value) for name, value in node.items()}
    return {name: value for name, value in sorted(parsed.items()) if value is not None}


def requirements_errors(
    resources: Any, path: str, names: Callable[[str, str], list[FieldError]] = container_resource_name_errors
) -> list[FieldError]:
    """Upstream's `validateResourceRequirements` (names, quantities, requests within limits, whole
    hugepages next to cpu or memory); `names` checks a resource name (a container's by default, a
    pod's for pod-level resources)."""
    if not isinstance(resources, Mapping):
        return []
    check = f"{names.__module__}.{names.__qualname__}"
    part = (check, resources.get("limits"), resources.get("requests"))
    return _VALID_REQUIREMENTS.errors(part, lambda: _requirements_errors(resources, path, names))


# Requirements (by the name check they ran with) found valid before: every pod of a workload repeats its
# containers' resources.
_VALID_REQUIREMENTS: Final = KnownValid()


def _requirements_errors(
    resources: Mapping[str, Any], path: str, names: Callable[[str, str], list[FieldError]]
) -> list[FieldError]:
    limits, requests = _resource_list(resources.get("limits")), _resource_list(resources.get("requests"))
    limits_path, requests_path = f"{path}.limits", f"{path}.requests"
    errors: list[FieldError] = []
    for name, value in limits.items():
        where = f"{limits_path}[{name}]"
        errors += names(name, where) + quantity_errors(name, value, where) + hugepage_value_errors(name, value, where)
    for name, value in requests.items():
        where = f"{requests_path}[{name}]"
        errors += names(name, where) + quantity_errors(name, value, where)
        limit = limits.get(name)
        if limit is not None:
            if value != limit and not overcommit_allowed(name):
                errors.append(invalid(requests_path, str(value), f"must be equal to {name} limit of {limit}"))
            elif value > limit:
                detail = f"must be less than or equal to {name} limit of {limit}"
                errors.append(invalid(requests_path, str(value), detail))
        elif not overcommit_allowed(name):
            errors.append(required(limits_path, "Limit must be set for non overcommitable resources"))
        errors += hugepage_value_errors(name, value, where)
    named = limits.keys() | requests.keys()
    if not named & _CPU_OR_MEMORY and any(name.startswith(_HUGEPAGES) for name in named):
        errors.append(forbidden(path, "HugePages require cpu or memory"))
    return errors
