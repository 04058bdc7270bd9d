"""Kinds of the smaller API groups, each a short table as in its `pkg/apis/<group>/validation`:
PriorityClass (scheduling), Lease (coordination), PodDisruptionBudget (policy),
HorizontalPodAutoscaler (autoscaling), NetworkPolicy, Ingress and IngressClass (networking).
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Final

from svc.api.validation.autoscaling_metrics import behavior_errors, metrics_errors
from svc.api.validation.containers import PORT_RANGE, PROTOCOLS, is_valid_port_name
from svc.api.validation.engine import (
    Check,
    Immutable,
    KindRules,
    OneOf,
    Range,
    UpdateCheck,
    go_struct,
    integer,
    items,
    lookup,
    mapping,
    text,
)
from svc.api.validation.ratchets import INGRESS_RATCHETS
from svc.api.validation.workloads import int_or_percent_errors, not_more_than_100
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported, required, too_long
from svc.machinery.labels import validate_label_selector
from svc.machinery.validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_path_segment_name,
    regex_error,
)

# --- scheduling.k8s.io PriorityClass ------------------------------------------------------------

HIGHEST_USER_PRIORITY: Final = 1_000_000_000
_SYSTEM_PRIORITY_CLASSES: Final = {"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}


def _priority_value(obj: Any, _: str) -> list[FieldError]:
    name, value = str(lookup(obj, "metadata.name") or ""), lookup(obj, "value")
    if name.startswith("system-"):
        known = _SYSTEM_PRIORITY_CLASSES.get(name)
        if known is None:
            reason = f"{name} is not a known system priority class"
        elif value != known:
            reason = f"value of {name} PriorityClass must be {known}"
        else:
            return []
        detail = f"priority class names with 'system-' prefix are reserved for system use only. error: {reason}"
        return [forbidden("metadata.name", detail)]
    if isinstance(value, int) and value > HIGHEST_USER_PRIORITY:
        return [forbidden("value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}")]
    return []


def _priority_value_fixed(new: Any, old: Any, _: str) -> list[FieldError]:
    if lookup(new, "value") != lookup(old, "value"):
        return [forbidden("value", "may not be changed in an update.")]
    return []


PRIORITY_CLASS = KindRules(
    create=(Check(_priority_value), OneOf("preemptionPolicy", ("PreemptLowerPriority", "Never"), optional=True)),
    update=(UpdateCheck(_priority_value_fixed), Immutable("preemptionPolicy")),
)

# --- coordination.k8s.io Lease ------------------------------------------------------------------


def _lease_duration(obj: Any, _: str) -> list[FieldError]:
    duration = lookup(obj, "spec.leaseDurationSeconds")
    if isinstance(duration, int) and duration <= 0:
        return [invalid("spec.leaseDurationSeconds", duration, "must be greater than 0")]
    return []


LEASE_STRATEGIES: Final = ("OldestEmulationVersion",)


def _lease_strategy(obj: Any, _: str) -> list[FieldError]:
    """Upstream's `ValidateCoordinatedLeaseStrategy`, called with `spec.strategy` and naming its child
    `strategy` again (so the path is `spec.strategy.strategy`): a bare name must be a known strategy,
    a prefixed one a qualified name; a preferred holder needs a strategy."""
    spec = mapping(obj, "spec")
    strategy = spec.get("strategy")
    errors: list[FieldError] = []
    if isinstance(strategy, str):
        path = "spec.strategy.strategy"
        if "/" not in strategy:
            if strategy not in LEASE_STRATEGIES:
                errors.append(not_supported(path, strategy, LEASE_STRATEGIES))
        else:
            errors += [invalid(path, strategy, message) for message in is_qualified_name(strategy)]
    if text(spec, "preferredHolder") and not (isinstance(strategy, str) and strategy):
        errors.append(forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"))
    return errors


LEASE = KindRules(create=(Check(_lease_duration), Range("spec.leaseTransitions"), Check(_lease_strategy)))

# --- policy PodDisruptionBudget -----------------------------------------------------------------


def _budget(obj: Any, _: str) -> list[FieldError]:
    spec = mapping(obj, "spec")
    errors: list[FieldError] = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        shown = go_struct(spec, ("minAvailable", "selector", "maxUnavailable", "unhealthyPodEvictionPolicy"))
        errors.append(invalid("spec", shown, "minAvailable and maxUnavailable cannot be both set"))
    for key in ("minAvailable", "maxUnavailable"):
        if spec.get(key) is not None:
            errors += int_or_percent_errors(spec[key], f"spec.{key}") + not_more_than_100(spec[key], f"spec.{key}")
    errors += validate_label_selector(spec.get("selector"), "spec.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in ("AlwaysAllow", "IfHealthyBudget"):
        errors.append(not_supported("spec.unhealthyPodEvictionPolicy", policy, ("AlwaysAllow", "IfHealthyBudget")))
    return errors


POD_DISRUPTION_BUDGET = KindRules(create=(Check(_budget),))

# --- autoscaling HorizontalPodAutoscaler --------------------------------------------------------


def _scale_target(obj: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("kind", "name"):
        value = str(lookup(obj, f"spec.scaleTargetRef.{key}") or "")
        path = f"spec.scaleTargetRef.{key}"
        if not value:
            errors.append(required(path))
        else:
            errors += [invalid(path, value, message) for message in is_valid_path_segment_name(value)]
    return errors


def _replica_bounds(obj: Any, _: str) -> list[FieldError]:
    low, high = lookup(obj, "spec.minReplicas"), lookup(obj, "spec.maxReplicas")
    errors: list[FieldError] = []
    if isinstance(low, int) and low < 1:
        errors.append(invalid("spec.minReplicas", low, "must be greater than or equal to 1"))
    high = high if isinstance(high, int) else 0
    if high < 1:
        errors.append(invalid("spec.maxReplicas", high, "must be greater than 0"))
    if isinstance(low, int) and high < low:
        errors.append(invalid("spec.maxReplicas", high, "must be greater than or equal to `minReplicas`"))
    return errors


HORIZONTAL_POD_AUTOSCALER = KindRules(
    create=(Check(_replica_bounds), Check(_scale_target), Check(metrics_errors), Check(behavior_errors))
)

# --- networking.k8s.io NetworkPolicy ------------------------------------------------------------


def _peer(peer: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    kinds = [key for key in ("podSelector", "namespaceSelector", "ipBlock") if lookup(peer, key) is not None]
    for key in ("podSelector", "namespaceSelector"):
        if key in kinds:
            errors += validate_label_selector(lookup(peer, key), f"{path}.{key}")
    if "ipBlock" in kinds and not lookup(peer, "ipBlock.cidr"):
        errors.append(required(f"{path}.ipBlock.cidr"))
    if not kinds:
        errors.append(required(path, "must specify a peer"))
    elif len(kinds) > 1 and "ipBlock" in kinds:
        errors.append(forbidden(path, "may not specify both ipBlock and another peer"))
    return errors


_PROTOCOL: Final = OneOf("protocol", PROTOCOLS, optional=True)


def _policy_port(port: Any, path: str) -> list[FieldError]:
    errors = _PROTOCOL.run(port, path)
    number = lookup(port, "port")
    if isinstance(number, int) and not 1 <= number <= 65535:
        errors.append(invalid(f"{path}.port", number, PORT_RANGE))
    end = integer(port, "endPort")
    if end is not None:
        if not isinstance(number, int):
            errors.append(required(f"{path}.port", "must be specified when endPort is specified"))
        elif end < number:
            errors.append(invalid(f"{path}.endPort", end, "must be greater than or equal to `port`"))
    return errors


def _rules(spec: Any, key: str, peers: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, rule in enumerate(items(lookup(spec, key))):
        path = f"spec.{key}[{index}]"
        for port_index, port in enumerate(items(lookup(rule, "ports"))):
            errors += _policy_port(port, f"{path}.ports[{port_index}]")
        for peer_index, peer in enumerate(items(lookup(rule, peers))):
            errors += _peer(peer, f"{path}.{peers}[{peer_index}]")
    return errors


def _network_policy(obj: Any, _: str) -> list[FieldError]:
    spec = mapping(obj, "spec")
    errors = validate_label_selector(spec.get("podSelector") or {}, "spec.podSelector")
    errors += _rules(spec, "ingress", "from") + _rules(spec, "egress", "to")
    types = items(spec.get("policyTypes"))
    allowed = ("Ingress", "Egress")
    for index, kind in enumerate(types):
        if kind not in allowed:
            errors.append(not_supported(f"spec.policyTypes[{index}]", kind, allowed))
    if len(types) > len(allowed):
        errors.append(invalid("spec.policyTypes", types, "may not specify more than two policyTypes"))
    return errors


NETWORK_POLICY = KindRules(create=(Check(_network_policy),))

# --- networking.k8s.io Ingress ------------------------------------------------------------------

_WILDCARD: Final = r"\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_WILDCARD_RE: Final = re.compile(_WILDCARD)
_WILDCARD_MESSAGE: Final = (
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist "
    "of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character"
)
_BAD_PATH_SEQUENCES: Final = ("//", "/./", "/../", "%2f", "%2F")
_BAD_PATH_SUFFIXES: Final = ("/..", "/.")


def is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    errors = ["must be no more than 253 characters"] if len(value) > 253 else []
    if not _WILDCARD_RE.fullmatch(value):
        errors.append(regex_error(_WILDCARD_MESSAGE, _WILDCARD, "*.example.com"))
    return errors


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def _host_errors(host: str, path: str) -> list[FieldError]:
    errors = [invalid(path, host, "must be a DNS name, not an IP address")] if _is_ip(host) else []
    check = is_wildcard_dns1123_subdomain if "*" in host else is_dns1123_subdomain
    return errors + [invalid(path, host, message) for message in check(host)]


def _backend(backend: Any, path: str) -> list[FieldError]:
    resource, service = lookup(backend, "resource"), lookup(backend, "service")
    if resource is not None and service is not None:
        return [invalid(path, "", "cannot set both resource and service backends")]
    if resource is not None:
        errors = [] if lookup(resource, "kind") else [required(f"{path}.resource.kind")]
        return errors + ([] if lookup(resource, "name") else [required(f"{path}.resource.name")])
    if service is None:
        return [invalid(path, "", "resource or service backend is required")]
    errors: list[FieldError] = []
    name = str(lookup(service, "name") or "")
    if not name:
        errors.append(required(f"{path}.service.name"))
    else:
        errors += [invalid(f"{path}.service.name", name, message) for message in is_dns1123_label(name)]
    port_name, number = text(service, "port.name"), integer(service, "port.number") or 0
    if port_name and number:
        errors.append(invalid(path, "", "cannot set both port name & port number"))
    elif port_name:
        errors += [invalid(f"{path}.service.port.name", port_name, m) for m in is_valid_port_name(port_name)]
    elif number:
        if not 1 <= number <= 65535:
            errors.append(invalid(f"{path}.service.port.number", number, PORT_RANGE))
    else:
        errors.append(required(path, "port name or number is required"))
    return errors


def _ingress_path(entry: Any, path: str) -> list[FieldError]:
    kind, value = lookup(entry, "pathType"), str(lookup(entry, "path") or "")
    if kind is None:
        return [required(f"{path}.pathType", "pathType must be specified")]
    errors: list[FieldError] = []
    if kind in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errors.append(invalid(f"{path}.path", value, "must be an absolute path"))
        errors += [
            invalid(f"{path}.path", value, f"must not contain '{bad}'") for bad in _BAD_PATH_SEQUENCES if bad in value
        ]
        errors += [
            invalid(f"{path}.path", value, f"cannot end with '{bad}'")
            for bad in _BAD_PATH_SUFFIXES
            if value.endswith(bad)
        ]
    elif kind == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errors.append(invalid(f"{path}.path", value, "must be an absolute path"))
    else:
        errors.append(not_supported(f"{path}.pathType", kind, ("Exact", "ImplementationSpecific", "Prefix")))
    return errors + _backend(lookup(entry, "backend"), f"{path}.backend")


def _ingress(obj: Any, _: str) -> list[FieldError]:
    spec = mapping(obj, "spec")
    rules, default = items(spec.get("rules")), spec.get("defaultBackend")
    errors: list[FieldError] = []
    if not rules and default is None:
        errors.append(invalid("spec", rules or None, "either `defaultBackend` or `rules` must be specified"))
    if default is not None:
        errors += _backend(default, "spec.defaultBackend")
    for index, rule in enumerate(rules):
        where = f"spec.rules[{index}]"
        host = str(lookup(rule, "host") or "")
        if host:
            errors += _host_errors(host, f"{where}.host")
        http = lookup(rule, "http")
        if http is not None:
            paths = items(lookup(http, "paths"))
            if not paths:
                errors.append(required(f"{where}.http.paths"))
            for path_index, entry in enumerate(paths):
                errors += _ingress_path(entry, f"{where}.http.paths[{path_index}]")
    for index, tls in enumerate(items(spec.get("tls"))):
        for host_index, host in enumerate(items(lookup(tls, "hosts"))):
            check = is_wildcard_dns1123_subdomain if "*" in str(host) else is_dns1123_subdomain
            path = f"spec.tls[{index}].hosts[{host_index}]"
            errors += [invalid(path, host, message) for message in check(str(host))]
        secret = text(tls, "secretName")
        if secret:
            where = f"spec.tls[{index}].secretName"
            errors += [invalid(where, secret, message) for message in is_dns1123_subdomain(secret)]
    class_name = spec.get("ingressClassName")
    if class_name is not None:
        errors += [invalid("spec.ingressClassName", class_name, m) for m in is_dns1123_subdomain(str(class_name))]
    return errors


INGRESS = KindRules(create=(Check(_ingress),), ratchets=INGRESS_RATCHETS)

# --- networking.k8s.io IngressClass -------------------------------------------------------------

_MAX_CONTROLLER: Final = 250
_HTTP_PATH: Final = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_RE: Final = re.compile(_HTTP_PATH)


def _domain_prefixed_path(value: str, path: str) -> list[FieldError]:
    """Upstream's `IsDomainPrefixedPath`: a DNS subdomain, '/', then an HTTP path."""
    if not value:
        return [required(path)]
    host, slash, rest = value.partition("/")
    if not slash or not host or not rest:
        return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errors = [invalid(path, host, message) for message in is_dns1123_subdomain(host)]
    if not _HTTP_PATH_RE.fullmatch(rest):
        errors.append(invalid(path, rest, regex_error("Invalid path", _HTTP_PATH)))
    return errors


def _class_parameters(parameters: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("kind", "name"):
        value = text(parameters, key)
        if not value:
            errors.append(required(f"{path}.{key}"))
        else:
            errors += [invalid(f"{path}.{key}", value, m) for m in is_valid_path_segment_name(value)]
    group = lookup(parameters, "apiGroup")
    if isinstance(group, str) and group:
        errors += [invalid(f"{path}.apiGroup", group, message) for message in is_dns1123_subdomain(group)]
    scope, namespace = lookup(parameters, "scope"), lookup(parameters, "namespace")
    if scope is None:
        errors.append(required(f"{path}.scope"))
    elif scope not in ("Cluster", "Namespace"):
        errors.append(not_supported(f"{path}.scope", scope, ("Cluster", "Namespace")))
    elif scope == "Namespace" and namespace is None:
        errors.append(required(f"{path}.namespace", "`parameters.scope` is set to 'Namespace'"))
    elif scope == "Cluster" and namespace is not None:
        errors.append(forbidden(f"{path}.namespace", "`parameters.scope` is set to 'Cluster'"))
    if isinstance(namespace, str) and namespace:
        errors += [invalid(f"{path}.namespace", namespace, message) for message in is_dns1123_label(namespace)]
    return errors


def _ingress_class(obj: Any, _: str) -> list[FieldError]:
    controller = text(obj, "spec.controller")
    errors = [too_long("spec.controller", _MAX_CONTROLLER)] if len(controller) > _MAX_CONTROLLER else []
    errors += _domain_prefixed_path(controller, "spec.controller")
    parameters = lookup(obj, "spec.parameters")
    if isinstance(parameters, dict):
        errors += _class_parameters(parameters, "spec.parameters")
    return errors


INGRESS_CLASS = KindRules(create=(Check(_ingress_class),), update=(Immutable("spec.controller"),))

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("scheduling.k8s.io", "PriorityClass"): PRIORITY_CLASS,
    ("coordination.k8s.io", "Lease"): LEASE,
    ("policy", "PodDisruptionBudget"): POD_DISRUPTION_BUDGET,
    ("autoscaling", "HorizontalPodAutoscaler"): HORIZONTAL_POD_AUTOSCALER,
    ("networking.k8s.io", "NetworkPolicy"): NETWORK_POLICY,
    ("networking.k8s.io", "Ingress"): INGRESS,
    ("networking.k8s.io", "IngressClass"): INGRESS_CLASS,
}
