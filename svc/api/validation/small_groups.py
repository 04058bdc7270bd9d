"""Kinds of the smaller API groups, each a short table as in its `pkg/apis/<group>/validation`:
PriorityClass (scheduling), Lease (coordination), PodDisruptionBudget (policy),
HorizontalPodAutoscaler (autoscaling) and NetworkPolicy (networking).
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import (
    Check,
    Immutable,
    KindRules,
    OneOf,
    Range,
    UpdateCheck,
    items,
    lookup,
)
from svc.api.validation.pods import PORT_RANGE, PROTOCOLS
from svc.api.validation.workloads import int_or_percent_errors, not_more_than_100
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported, required
from svc.machinery.labels import validate_label_selector
from svc.machinery.validation import is_valid_path_segment_name

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


LEASE = KindRules(create=(Check(_lease_duration), Range("spec.leaseTransitions")))

# --- policy PodDisruptionBudget -----------------------------------------------------------------


def _budget(obj: Any, _: str) -> list[FieldError]:
    spec = lookup(obj, "spec") or {}
    errors: list[FieldError] = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errors.append(invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"))
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


HORIZONTAL_POD_AUTOSCALER = KindRules(create=(Check(_replica_bounds), Check(_scale_target)))

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


def _policy_port(port: Any, path: str) -> list[FieldError]:
    errors = OneOf("protocol", PROTOCOLS, optional=True).run(port, path)
    number = lookup(port, "port")
    if isinstance(number, int) and not 1 <= number <= 65535:
        errors.append(invalid(f"{path}.port", number, PORT_RANGE))
    end = lookup(port, "endPort")
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
    spec = lookup(obj, "spec") or {}
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

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("scheduling.k8s.io", "PriorityClass"): PRIORITY_CLASS,
    ("coordination.k8s.io", "Lease"): LEASE,
    ("policy", "PodDisruptionBudget"): POD_DISRUPTION_BUDGET,
    ("autoscaling", "HorizontalPodAutoscaler"): HORIZONTAL_POD_AUTOSCALER,
    ("networking.k8s.io", "NetworkPolicy"): NETWORK_POLICY,
}
