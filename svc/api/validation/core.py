"""Core kinds other than pods and workloads: ConfigMap, Secret, Service, Namespace, LimitRange and
ResourceQuota, as upstream's `pkg/apis/core/validation` checks them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from svc.api.validation.addresses import cidr_errors, ip_errors, kept_address, special_ip_errors
from svc.api.validation.containers import PORT_RANGE, PROTOCOLS, is_valid_port_name
from svc.api.validation.engine import (
    IMMUTABLE,
    Check,
    Format,
    Immutable,
    KindRules,
    OneOf,
    UpdateCheck,
    integer,
    items,
    join,
    lookup,
    mapping,
    run,
    string_map,
    text,
)
from svc.api.validation.quota_scopes import scope_selector_errors, scopes_errors
from svc.api.validation.resources import overcommit_allowed, quantity, quantity_errors, resource_name_errors
from svc.api.validation.service_ips import cluster_ips_related_errors, external_name_errors, upgrade_downgrade_errors
from svc.machinery.field_errors import (
    FieldError,
    Rendered,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
)
from svc.machinery.gotext import json_marshal
from svc.machinery.validation import (
    is_config_map_key,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_labels,
)

MAX_SECRET_SIZE: Final = 1024 * 1024
_IMMUTABLE_WHEN_SET: Final = "field is immutable when `immutable` is set"


def _decoded_size(encoded: Any) -> int:
    """Bytes a base64 value holds, without decoding it."""
    if not isinstance(encoded, str):
        return 0
    return len(encoded) * 3 // 4 - encoded[-2:].count("=")


def _keys(data: Any, path: str) -> list[FieldError]:
    if not isinstance(data, Mapping):
        return []
    return [invalid(f"{path}[{key}]", key, message) for key in sorted(data) for message in is_config_map_key(key)]


def _config_map(obj: Any, _: str) -> list[FieldError]:
    data, binary = lookup(obj, "data"), lookup(obj, "binaryData")
    errors = _keys(data, "data")
    total = 0
    if isinstance(data, Mapping):
        for key, value in data.items():
            if isinstance(binary, Mapping) and key in binary:
                errors.append(invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
            total += len(value.encode()) if isinstance(value, str) else 0
    errors += _keys(binary, "binaryData")
    if isinstance(binary, Mapping):
        total += sum(_decoded_size(value) for value in binary.values())
    if total > MAX_SECRET_SIZE:
        errors.append(too_long("", MAX_SECRET_SIZE))
    return errors


def _frozen_when_immutable(*fields: str) -> UpdateCheck:
    """An object marked `immutable: true` keeps that mark and its data for ever."""

    def check(new: Any, old: Any, _: str) -> list[FieldError]:
        if lookup(old, "immutable") is not True:
            return []
        errors = [] if lookup(new, "immutable") is True else [forbidden("immutable", _IMMUTABLE_WHEN_SET)]
        return errors + [
            forbidden(name, _IMMUTABLE_WHEN_SET) for name in fields if lookup(new, name) != lookup(old, name)
        ]

    return UpdateCheck(check)


CONFIG_MAP = KindRules(
    create=(Check(_config_map),), update=(_frozen_when_immutable("data", "binaryData"),), update_first=True
)

# Keys a Secret of each type must hold (username or password for basic-auth: either one will do).
_SECRET_KEYS: Final = {
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/ssh-auth": ("ssh-privatekey",),
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
}


def _secret(obj: Any, _: str) -> list[FieldError]:
    data = lookup(obj, "data")
    data = data if isinstance(data, Mapping) else {}
    errors = _keys(data, "data")
    if sum(_decoded_size(value) for value in data.values()) > MAX_SECRET_SIZE:
        errors.append(too_long("data", MAX_SECRET_SIZE))
    kind = text(obj, "type")
    if kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            errors += [required("data[username]"), required("data[password]")]
    elif kind == "kubernetes.io/ssh-auth":
        if not data.get("ssh-privatekey"):
            errors.append(required("data[ssh-privatekey]"))
    else:
        for key in _SECRET_KEYS.get(kind, ()):
            if key not in data:
                errors.append(required(f"data[{key}]"))
                if kind != "kubernetes.io/tls":
                    break
    return errors


SECRET = KindRules(
    create=(Check(_secret),),
    update=(Immutable("type"), _frozen_when_immutable("data")),
    update_first=True,
)

# --- Service ------------------------------------------------------------------------------------

SERVICE_TYPES: Final = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")


def _target_port(port: Any, base: str) -> list[FieldError]:
    target = lookup(port, "targetPort")
    path = join(base, "targetPort")
    if isinstance(target, str):
        return [invalid(path, target, message) for message in is_valid_port_name(target)]
    if isinstance(target, int) and not 1 <= target <= 65535:
        return [invalid(path, target, PORT_RANGE)]
    return []


def _port_number(port: Any, base: str) -> list[FieldError]:
    """A service port has no "unset": zero is out of range like any other bad number."""
    value = lookup(port, "port")
    value = value if isinstance(value, int) else 0
    return [] if 1 <= value <= 65535 else [invalid(join(base, "port"), value, PORT_RANGE)]


SERVICE_PORT = (
    Format("name", is_dns1123_label),
    Check(_port_number),
    OneOf("protocol", PROTOCOLS),
    Check(_target_port),
    Format("appProtocol", is_qualified_name),
)


def _headless(spec: Any) -> bool:
    return lookup(spec, "clusterIP") == "None"


def _service_ports(spec: Any, base: str) -> list[FieldError]:
    """Each port (named when there are several, names unique), and no (protocol, port) pair twice."""
    ports = items(lookup(spec, "ports"))
    path = join(base, "ports")
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, port in enumerate(ports):
        where = f"{path}[{index}]"
        name = text(port, "name")
        if len(ports) > 1 and not name:
            errors.append(required(f"{where}.name"))
        errors += run(SERVICE_PORT, port, where)
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        elif name:
            names.add(name)
    return errors


def _service_port_json(port: Mapping[str, Any]) -> Rendered:
    """The internal ServicePort struct upstream prints for a duplicate (Go field names, declaration order)."""
    members = (
        ("Name", port.get("name") or ""),
        ("Protocol", port.get("protocol") or ""),
        ("AppProtocol", None),
        ("Port", port.get("port") or 0),
        ("TargetPort", 0),
        ("NodePort", 0),
    )
    return Rendered("{" + ",".join(f'"{key}":{json_marshal(value)}' for key, value in members) + "}")


_SESSION_AFFINITY: Final = OneOf("sessionAffinity", ("ClientIP", "None"))
_SERVICE_TYPE: Final = OneOf("type", SERVICE_TYPES)
_TRAFFIC_POLICY: Final = OneOf("externalTrafficPolicy", ("Cluster", "Local"))


def _service_rules(spec: Any, base: str) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = lookup(spec, "type")
    ports = [port for port in items(lookup(spec, "ports")) if isinstance(port, Mapping)]
    if not ports and not _headless(spec) and kind != "ExternalName":
        errors.append(required(join(base, "ports")))
    if kind in ("LoadBalancer", "NodePort") and _headless(spec):
        word = "LoadBalancer" if kind == "LoadBalancer" else "NodePort"
        errors.append(invalid(join(base, "clusterIPs[0]"), "None", f"may not be set to 'None' for {word} services"))
    if kind == "ExternalName":
        errors += external_name_errors(spec)
        name = str(lookup(spec, "externalName") or "").removesuffix(".")
        path = join(base, "externalName")
        if name:
            errors += [invalid(path, name, message) for message in is_dns1123_subdomain(name)]
        else:
            errors.append(required(path))
    errors += _service_ports(spec, base)
    errors += validate_labels(string_map(spec, "selector"), join(base, "selector"))
    errors += _SESSION_AFFINITY.run(spec, base)
    affinity = lookup(spec, "sessionAffinity")
    if affinity == "None" and lookup(spec, "sessionAffinityConfig") is not None:
        detail = "must not be set when session affinity is None"
        errors.append(forbidden(join(base, "sessionAffinityConfig"), detail))
    errors += cluster_ips_related_errors(spec)
    for index, ip in enumerate(items(lookup(spec, "externalIPs"))):
        address, path = ip if isinstance(ip, str) else "", f"{join(base, 'externalIPs')}[{index}]"
        messages = ip_errors(address) or special_ip_errors(address)
        errors += [invalid(path, address, message) for message in messages]
    errors += _SERVICE_TYPE.run(spec, base)
    for index, port in enumerate(ports):
        if kind == "ClusterIP" and port.get("nodePort"):
            detail = "may not be used when `type` is 'ClusterIP'"
            errors.append(forbidden(f"{join(base, 'ports')}[{index}].nodePort", detail))
    seen_node_ports: set[tuple[Any, Any]] = set()
    for index, port in enumerate(ports):
        if port.get("nodePort"):
            key = (text(port, "protocol"), integer(port, "nodePort"))
            if key in seen_node_ports:
                errors.append(duplicate(f"{join(base, 'ports')}[{index}].nodePort", port["nodePort"]))
            seen_node_ports.add(key)
    seen: set[tuple[Any, Any]] = set()
    for index, port in enumerate(ports):
        key = (text(port, "protocol"), integer(port, "port"))
        if key in seen:
            shown = _service_port_json({"protocol": key[0], "port": key[1]})
            errors.append(duplicate(f"{join(base, 'ports')}[{index}]", shown))
        seen.add(key)
    accessible = kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and items(lookup(spec, "externalIPs")))
    policy = lookup(spec, "externalTrafficPolicy")
    if not accessible and policy:
        detail = "may only be set for externally-accessible services"
        errors.append(invalid(join(base, "externalTrafficPolicy"), policy, detail))
    elif accessible:
        errors += _TRAFFIC_POLICY.run(spec, base)
    errors += _source_ranges(spec, base)
    internal = lookup(spec, "internalTrafficPolicy")
    if internal is None and kind in ("NodePort", "LoadBalancer", "ClusterIP"):
        errors.append(required(join(base, "internalTrafficPolicy")))
    elif internal is not None and internal not in ("Cluster", "Local"):
        errors.append(not_supported(join(base, "internalTrafficPolicy"), internal, ("Cluster", "Local")))
    return errors


def _legacy_cidr_errors(value: str) -> list[str]:
    """Upstream's `IsValidCIDRForLegacyField` with strict validation: as `IsValidCIDR`, canonical form aside."""
    return [message for message in cidr_errors(value) if not message.startswith("must be in canonical form")]


def _source_ranges(spec: Any, base: str) -> list[FieldError]:
    """`loadBalancerSourceRanges` (spelled with a capital L in upstream's paths) only on load balancers;
    each a CIDR, spaces around it allowed as the annotation it replaced allowed them."""
    ranges = items(lookup(spec, "loadBalancerSourceRanges"))
    if not ranges:
        return []
    path = join(base, "LoadBalancerSourceRanges")
    errors: list[FieldError] = []
    if lookup(spec, "type") != "LoadBalancer":
        errors.append(forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
    for index, value in enumerate(ranges):
        value = str(value).strip()
        errors += [invalid(f"{path}[{index}]", value, message) for message in _legacy_cidr_errors(value)]
    return errors


SERVICE = KindRules(
    create=(Check(lambda obj, _: _service_rules(mapping(obj, "spec"), "spec")),),
    update=(UpdateCheck(upgrade_downgrade_errors),),
    update_first=True,
    kept_values=(kept_address,),
)

# --- Namespace, LimitRange, ResourceQuota -------------------------------------------------------


def namespace_rules(standard_finalizers: frozenset[str]) -> KindRules:
    """Namespace finalizers: qualified names, and a domain unless they are a standard one."""

    def check(obj: Any, _: str) -> list[FieldError]:
        errors: list[FieldError] = []
        for finalizer in items(lookup(obj, "spec.finalizers")):
            text = str(finalizer)
            errors += [invalid("spec.finalizers", text, message) for message in is_qualified_name(text)]
            if "/" not in text and text not in standard_finalizers:
                detail = "name is neither a standard finalizer name nor is it fully qualified"
                errors.append(invalid("spec.finalizers", text, detail))
        return errors

    return KindRules(create=(Check(check),))


_LIMIT_TYPES: Final = frozenset({"Pod", "Container", "PersistentVolumeClaim"})


def _limit_range_item(limit: Any, path: str, seen: set[str]) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = str(lookup(limit, "type") or "")
    errors += [invalid(f"{path}.type", kind, message) for message in is_qualified_name(kind)]
    if not errors and "/" not in kind and kind not in _LIMIT_TYPES:
        errors.append(invalid(f"{path}.type", kind, "must be a standard limit type or fully qualified"))
    if kind in seen:
        errors.append(duplicate(f"{path}.type", kind))
    seen.add(kind)
    values: dict[str, dict[str, Any]] = {}
    for member in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
        entries = lookup(limit, member)
        if not isinstance(entries, Mapping) or not entries:
            continue
        if kind == "Pod" and member in ("default", "defaultRequest"):
            errors.append(forbidden(f"{path}.{member}", "may not be specified when `type` is 'Pod'"))
            continue
        for name in sorted(entries):
            errors += resource_name_errors(name, f"{path}.{member}[{name}]")
        values[member] = {name: quantity(value) for name, value in entries.items()}
    if (
        kind == "PersistentVolumeClaim"
        and "storage" not in values.get("min", {})
        and "storage" not in values.get("max", {})
    ):
        detail = "either minimum or maximum storage value is required, but neither was provided"
        errors.append(required(f"{path}.limits", detail))
    return errors + _limit_range_bounds(values, path)


def _limit_range_bounds(values: dict[str, dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    names = sorted({name for member in values.values() for name in member})
    for name in names:
        low, high = values.get("min", {}).get(name), values.get("max", {}).get(name)
        default, request = values.get("default", {}).get(name), values.get("defaultRequest", {}).get(name)
        if low is not None and high is not None and low > high:
            errors.append(invalid(f"{path}.min[{name}]", str(low), f"min value {low} is greater than max value {high}"))
        if request is not None and low is not None and low > request:
            detail = f"min value {low} is greater than default request value {request}"
            errors.append(invalid(f"{path}.defaultRequest[{name}]", str(request), detail))
        if request is not None and high is not None and request > high:
            detail = f"default request value {request} is greater than max value {high}"
            errors.append(invalid(f"{path}.defaultRequest[{name}]", str(request), detail))
        if request is not None and default is not None and request > default:
            detail = f"default request value {request} is greater than default limit value {default}"
            errors.append(invalid(f"{path}.defaultRequest[{name}]", str(request), detail))
        if default is not None and low is not None and low > default:
            detail = f"min value {low} is greater than default value {default}"
            errors.append(invalid(f"{path}.default[{name}]", str(low), detail))
        if default is not None and high is not None and default > high:
            detail = f"default value {default} is greater than max value {high}"
            errors.append(invalid(f"{path}.default[{name}]", str(high), detail))
        ratio = values.get("maxLimitRequestRatio", {}).get(name)
        if ratio is not None:
            errors += _ratio_errors(ratio, low, high, f"{path}.maxLimitRequestRatio[{name}]")
        if not overcommit_allowed(name) and default is not None and request is not None and default != request:
            detail = f"default value {default} must equal to defaultRequest value {request} in {name}"
            errors.append(invalid(f"{path}.defaultRequest[{name}]", str(request), detail))
    return errors


_MAX_MILLI_VALUE: Final = (2**63 - 1) // 1000


def _ratio_errors(ratio: Any, low: Any, high: Any, path: str) -> list[FieldError]:
    """The ratio is at least 1, and no more than max/min when both bounds are set (compared in milli-units
    when all three fit, as upstream does)."""
    errors: list[FieldError] = []
    if ratio.value < 1:
        errors.append(invalid(path, str(ratio), f"ratio {ratio} is less than 1"))
    if low is None or high is None:
        return errors
    ratio_value, low_value, high_value = (math.ceil(quantity.value) for quantity in (ratio, low, high))
    if max(ratio_value, low_value, high_value) < _MAX_MILLI_VALUE:
        ratio_value = math.ceil(ratio.value * 1000) / 1000
        low_value, high_value = math.ceil(low.value * 1000), math.ceil(high.value * 1000)
    limit = high_value / low_value if low_value else math.inf
    if ratio_value > limit:
        errors.append(invalid(path, str(ratio), f"ratio {ratio} is greater than max/min = {limit:f}"))
    return errors


def _limit_range(obj: Any, _: str) -> list[FieldError]:
    seen: set[str] = set()
    errors: list[FieldError] = []
    for index, limit in enumerate(items(lookup(obj, "spec.limits"))):
        errors += _limit_range_item(limit, f"spec.limits[{index}]", seen)
    return errors


LIMIT_RANGE = KindRules(create=(Check(_limit_range),))


def _quota_spec(obj: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    hard = lookup(obj, "spec.hard")
    if isinstance(hard, Mapping):
        for name in sorted(hard):
            where = f"spec.hard[{name}]"
            errors += [invalid(where, name, message) for message in is_qualified_name(name)]
            value = quantity(hard[name])
            if value is not None:
                errors += quantity_errors(name, value, where)
    return errors + scopes_errors(obj, "") + scope_selector_errors(obj, "")


def _quota_scopes_fixed(new: Any, old: Any, _: str) -> list[FieldError]:
    scopes = items(lookup(new, "spec.scopes"))
    if {str(scope) for scope in scopes} != {str(scope) for scope in items(lookup(old, "spec.scopes"))}:
        return [invalid("spec.scopes", scopes, IMMUTABLE)]
    return []


RESOURCE_QUOTA = KindRules(create=(Check(_quota_spec),), update=(UpdateCheck(_quota_scopes_fixed),))

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("", "ConfigMap"): CONFIG_MAP,
    ("", "Secret"): SECRET,
    ("", "Service"): SERVICE,
    ("", "LimitRange"): LIMIT_RANGE,
    ("", "ResourceQuota"): RESOURCE_QUOTA,
}
