"""Endpoints and Node validation (`ValidateEndpoints`, `ValidateNode`, `ValidateNodeUpdate` in core).

Upstream reports node taints under `metadata.taints`, a path built from the metadata path; the quirk
is kept because clients see it.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.addresses import cidr_errors, ip_errors, kept_address, special_ip_errors
from svc.api.validation.containers import PORT_RANGE, PROTOCOLS
from svc.api.validation.engine import Check, KindRules, UpdateCheck, items, lookup, text
from svc.machinery.field_errors import (
    ErrorType,
    FieldError,
    Rendered,
    forbidden,
    invalid,
    not_supported,
    required,
)
from svc.machinery.gotext import json_marshal
from svc.machinery.validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    validate_label_name,
)

_TAINT_EFFECTS: Final = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _address(address: Any, path: str) -> list[FieldError]:
    ip = text(address, "ip")
    errors = [invalid(f"{path}.ip", ip, message) for message in ip_errors(ip)]
    hostname = text(address, "hostname")
    if hostname:
        errors += [invalid(f"{path}.hostname", hostname, message) for message in is_dns1123_label(hostname)]
    node_name = lookup(address, "nodeName")
    if isinstance(node_name, str):
        errors += [invalid(f"{path}.nodeName", node_name, message) for message in is_dns1123_subdomain(node_name)]
    return errors + [invalid(f"{path}.ip", ip, message) for message in special_ip_errors(ip)]


def _endpoint_port(port: Any, path: str, *, named: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    name = text(port, "name")
    if named and not name:
        errors.append(required(f"{path}.name"))
    elif name:
        errors += [invalid(f"{path}.name", name, message) for message in is_dns1123_label(name)]
    number = lookup(port, "port")
    number = number if type(number) is int else 0
    if not 1 <= number <= 65535:
        errors.append(invalid(f"{path}.port", number, PORT_RANGE))
    protocol = text(port, "protocol")
    if not protocol:
        errors.append(required(f"{path}.protocol"))
    elif protocol not in PROTOCOLS:
        errors.append(not_supported(f"{path}.protocol", protocol, PROTOCOLS))
    app_protocol = lookup(port, "appProtocol")
    if isinstance(app_protocol, str):
        errors += [invalid(f"{path}.appProtocol", app_protocol, m) for m in is_qualified_name(app_protocol)]
    return errors


def _subsets(obj: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, subset in enumerate(items(lookup(obj, "subsets"))):
        path = f"subsets[{index}]"
        addresses, not_ready = items(lookup(subset, "addresses")), items(lookup(subset, "notReadyAddresses"))
        if not addresses and not not_ready:
            errors.append(required(path, "must specify `addresses` or `notReadyAddresses`"))
        for address_index, address in enumerate(addresses):
            errors += _address(address, f"{path}.addresses[{address_index}]")
        for address_index, address in enumerate(not_ready):
            errors += _address(address, f"{path}.notReadyAddresses[{address_index}]")
        ports = items(lookup(subset, "ports"))
        for port_index, port in enumerate(ports):
            errors += _endpoint_port(port, f"{path}.ports[{port_index}]", named=len(ports) > 1)
    return errors


ENDPOINTS = KindRules(create=(Check(_subsets),), kept_values=(kept_address,))


def _taint_value(taint: Any) -> Rendered:
    """A taint as upstream prints it in its duplicate error."""
    members = ",".join(f'"{key}":{json_marshal(text(taint, key))}' for key in ("key", "value", "effect"))
    return Rendered("{" + members + "}")


def _taints(obj: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for index, taint in enumerate(items(lookup(obj, "spec.taints"))):
        path = f"metadata.taints[{index}]"
        key, value, effect = text(taint, "key"), text(taint, "value"), text(taint, "effect")
        errors += validate_label_name(key, f"{path}.key")
        messages = is_valid_label_value(value)
        if messages:
            errors.append(invalid(f"{path}.value", value, ";".join(messages)))
        if not effect:
            errors.append(required(f"{path}.effect"))
        elif effect not in _TAINT_EFFECTS:
            errors.append(not_supported(f"{path}.effect", effect, _TAINT_EFFECTS))
        if (effect, key) in seen:
            detail = "taints must be unique by key and effect pair"
            errors.append(FieldError(ErrorType.DUPLICATE, path, _taint_value(taint), detail))
        seen.add((effect, key))
    return errors


def _pod_cidrs(obj: Any, _: str) -> list[FieldError]:
    cidrs = items(lookup(obj, "spec.podCIDRs"))
    return [
        invalid(f"spec.podCIDRs[{index}]", cidr, message)
        for index, cidr in enumerate(cidrs)
        for message in cidr_errors(cidr if isinstance(cidr, str) else "")
    ]


def _node_update(new: Any, old: Any, _: str) -> list[FieldError]:
    """A node's pod CIDRs and provider ID, once set, stay."""
    errors: list[FieldError] = []
    old_cidrs = items(lookup(old, "spec.podCIDRs"))
    if old_cidrs and old_cidrs != items(lookup(new, "spec.podCIDRs")):
        errors.append(forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid'))
    provider = text(old, "spec.providerID")
    if provider and provider != text(new, "spec.providerID"):
        errors.append(forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'))
    return errors


NODE = KindRules(
    create=(Check(_taints), Check(_pod_cidrs)), update=(UpdateCheck(_node_update),), kept_values=(kept_address,)
)

RULES: Final[dict[tuple[str, str], KindRules]] = {("", "Endpoints"): ENDPOINTS, ("", "Node"): NODE}
