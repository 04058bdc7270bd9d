"""Pod spec fields about how the pod runs on its node, as upstream's `validatePodSpec` checks them:
host-network ports, readiness gates, the runtime class and its overhead."""

from __future__ import annotations

from typing import Any

from svc.api.validation.engine import items, join, lookup
from svc.api.validation.resources import requirements_errors
from svc.machinery.field_errors import FieldError, invalid
from svc.machinery.validation import is_qualified_name, name_is_dns_subdomain


def host_network_port_errors(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `validateHostNetwork`: on the host's network a container port is its host port."""
    if lookup(spec, "hostNetwork") is not True:
        return []
    errors: list[FieldError] = []
    for index, container in enumerate(items(lookup(spec, "containers"))):
        for number, port in enumerate(items(lookup(container, "ports"))):
            host_port, container_port = lookup(port, "hostPort") or 0, lookup(port, "containerPort") or 0
            if host_port != container_port:
                path = f"{join(base, 'containers')}[{index}].ports[{number}].hostPort"
                errors.append(invalid(path, host_port, "must match `containerPort` when `hostNetwork` is true"))
    return errors


def readiness_gate_errors(spec: Any, base: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, gate in enumerate(items(lookup(spec, "readinessGates"))):
        condition = str(lookup(gate, "conditionType") or "")
        path = f"{join(base, 'readinessGates')}[{index}].conditionType"
        errors += [invalid(path, condition, message) for message in is_qualified_name(condition)]
    return errors


def runtime_class_name_errors(spec: Any, base: str) -> list[FieldError]:
    name = lookup(spec, "runtimeClassName")
    if not isinstance(name, str):
        return []
    path = join(base, "runtimeClassName")
    return [invalid(path, name, message) for message in name_is_dns_subdomain(name, False)]


def overhead_errors(spec: Any, base: str) -> list[FieldError]:
    """The overhead is checked as container limits are."""
    overhead = lookup(spec, "overhead")
    if type(overhead) is not dict:
        return []
    return requirements_errors({"limits": overhead}, join(base, "overhead"))
