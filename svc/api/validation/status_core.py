"""What a write through `/status` must satisfy for the core kinds (upstream `ValidatePodStatusUpdate`,
`ValidateServiceStatusUpdate`, `ValidateNodeUpdate`, `ValidatePersistentVolumeClaimStatusUpdate`,
`ValidateNamespaceStatusUpdate`, `ValidateReplicationControllerStatusUpdate`).

The store has already replaced the spec with the stored one and checked the generic metadata rules, so
these tables look at the status, comparing with the stored object where upstream does.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.addresses import ip_errors, parse_ip
from svc.api.validation.engine import Immutable, UpdateCheck, UpdateCheckFn, UpdateTable, items, lookup, mapping, text
from svc.api.validation.pod_annotations import annotation_update_errors, pod_annotation_errors
from svc.api.validation.pod_extended_resources import extended_resource_claim_status_errors
from svc.api.validation.pod_status_claims import node_allocatable_claim_errors
from svc.api.validation.resources import is_native, quantity, quantity_errors
from svc.api.validation.status_containers import container_status_errors
from svc.machinery.field_errors import FieldError, duplicate, forbidden, invalid, not_supported, required
from svc.machinery.validation import is_dns1123_subdomain, is_qualified_name

_SYSTEM_POD_CONDITIONS: Final = frozenset({"PodScheduled", "Ready", "Initialized"})
_IP_MODES: Final = ("Proxy", "VIP")
_RESIZE_STATUSES: Final = (
    "ControllerResizeInProgress",
    "ControllerResizeInfeasible",
    "NodeResizeInProgress",
    "NodeResizeInfeasible",
    "NodeResizePending",
)
NOT_ABOVE_REPLICAS: Final = "cannot be greater than status.replicas"
NON_NEGATIVE: Final = "must be a non-negative integer"
# Counters that are not a share of `status.replicas`.
_NOT_COUNTED: Final = frozenset(
    {"replicas", "observedGeneration", "collisionCount", "terminatingReplicas", "unavailableReplicas"}
)


def _pod_conditions(new: Any, _: Any, __: str) -> list[FieldError]:
    """`validatePodConditions`; 1.36 reports under `status.conditions` (older releases said `metadata.`),
    and the type's path keeps upstream's capital `Type`."""
    errors: list[FieldError] = []
    for index, condition in enumerate(items(lookup(new, "status.conditions"))):
        path = f"status.conditions[{index}]"
        generation = lookup(condition, "observedGeneration")
        if type(generation) is int and generation < 0:
            errors.append(invalid(f"{path}.observedGeneration", generation, NON_NEGATIVE))
        kind = text(condition, "type")
        if kind not in _SYSTEM_POD_CONDITIONS:
            errors += [invalid(f"{path}.Type", kind, message) for message in is_qualified_name(kind)]
    return errors


def _nominated_node(new: Any, old: Any, _: str) -> list[FieldError]:
    """A newly nominated node is a valid name, and only for a pod not bound yet
    (ClearingNominatedNodeNameAfterBinding, on since 1.35); then the pod's observed generation."""
    name = text(new, "status.nominatedNodeName")
    errors: list[FieldError] = []
    if name and name != text(old, "status.nominatedNodeName"):
        errors += [invalid("status.nominatedNodeName", name, message) for message in is_dns1123_subdomain(name)]
        if text(old, "spec.nodeName"):
            detail = "may not be set on pods that are already bound to a node"
            errors.append(forbidden("status.nominatedNodeName", detail))
    generation = lookup(new, "status.observedGeneration")
    if type(generation) is int and generation < 0:
        errors.append(invalid("status.observedGeneration", generation, NON_NEGATIVE))
    return errors


def _restartable(container: Any) -> bool:
    return text(container, "restartPolicy") == "Always"


def _state_transitions(new: Any, old: Any, key: str, policy: str, restartable: frozenset[str]) -> list[FieldError]:
    """Upstream's `ValidateContainerStateTransition`: a container that may not restart stays terminated."""
    if policy == "Always":
        return []
    errors: list[FieldError] = []
    new_statuses = items(lookup(new, f"status.{key}"))
    for index, previous in enumerate(items(lookup(old, f"status.{key}"))):
        terminated = lookup(previous, "state.terminated")
        if type(terminated) is not dict or text(previous, "name") in restartable:
            continue
        if lookup(terminated, "exitCode") not in (0, None) and policy == "OnFailure":
            continue
        for current in new_statuses:
            if text(current, "name") == text(previous, "name") and lookup(current, "state.terminated") is None:
                detail = "may not be transitioned to non-terminated state"
                errors.append(forbidden(f"status.{key}[{index}].state", detail))
    return errors


def _container_states(new: Any, old: Any, _: str) -> list[FieldError]:
    policy = text(old, "spec.restartPolicy")
    sidecars = frozenset(text(c, "name") for c in items(lookup(old, "spec.initContainers")) if _restartable(c))
    return (
        _state_transitions(new, old, "containerStatuses", policy, frozenset())
        + _state_transitions(new, old, "initContainerStatuses", policy, sidecars)
        + _state_transitions(new, old, "ephemeralContainerStatuses", "Never", frozenset())
    )


def _claim_statuses(new: Any, _: Any, __: str) -> list[FieldError]:
    claims = {text(claim, "name") for claim in items(lookup(new, "spec.resourceClaims"))}
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, entry in enumerate(items(lookup(new, "status.resourceClaimStatuses"))):
        path, name = f"status.resourceClaimStatuses[{index}].name", text(entry, "name")
        if name not in claims:
            errors.append(invalid(path, name, "must match the name of an entry in `spec.resourceClaims`"))
        if name in seen:
            errors.append(duplicate(path, name))
        seen.add(name)
        claim_name = lookup(entry, "resourceClaimName")
        if isinstance(claim_name, str):
            where = f"status.resourceClaimStatuses[{index}].resourceClaimName"
            errors += [invalid(where, claim_name, message) for message in is_dns1123_subdomain(claim_name)]
    return errors


def _ips(node: Any, path: str) -> frozenset[str]:
    return frozenset(text(entry, "ip") for entry in items(lookup(node, path)))


def _ip_list(new: Any, old: Any, key: str) -> list[FieldError]:
    """`validatePodIPs` / `validateHostIPs`: valid addresses (those already stored as leniently as then),
    at most one of each family, no repeats."""
    path = f"status.{key}"
    entries, stored = items(lookup(new, path)), _ips(old, path)
    errors = [
        invalid(f"{path}[{index}]", text(entry, "ip"), message)
        for index, entry in enumerate(entries)
        for message in ip_errors(text(entry, "ip"), stored)
    ]
    if len(entries) > 1:
        families = {parse_ip(text(entry, "ip")).version for entry in entries if parse_ip(text(entry, "ip"))}
        if len(entries) > 2 or families != {4, 6}:
            errors.append(invalid(path, entries, "may specify no more than one IP for each IP family"))
        seen: set[str] = set()
        for index, entry in enumerate(entries):
            if text(entry, "ip") in seen:
                errors.append(duplicate(f"{path}[{index}]", entry))
            seen.add(text(entry, "ip"))
    return errors


def _pod_ips(new: Any, old: Any, _: str) -> list[FieldError]:
    errors = _ip_list(new, old, "podIPs")
    host_ips = items(lookup(new, "status.hostIPs"))
    if host_ips:
        first = text(host_ips[0], "ip")
        if text(new, "status.hostIP") != first:
            errors.append(invalid("status.hostIPs[0].ip", first, "must be equal to `hostIP`"))
        errors += _ip_list(new, old, "hostIPs")
    return errors


def _pod_annotations(new: Any, old: Any, _: str) -> list[FieldError]:
    """A status write carries the pod's annotations (its status strategy keeps them), judged as an update's."""
    base = "metadata.annotations"
    return annotation_update_errors(new, old, base) + pod_annotation_errors(new, base)


POD_STATUS: Final[UpdateTable] = (
    UpdateCheck(_pod_annotations),
    UpdateCheck(_pod_conditions),
    UpdateCheck(_nominated_node),
    Immutable("status.qosClass"),
    UpdateCheck(_container_states),
    UpdateCheck(_claim_statuses),
    UpdateCheck(node_allocatable_claim_errors),
    UpdateCheck(extended_resource_claim_status_errors),
    UpdateCheck(_pod_ips),
    UpdateCheck(container_status_errors),
)


def _load_balancer(new: Any, old: Any, _: str) -> list[FieldError]:
    """`ValidateLoadBalancerStatus`: only LoadBalancer Services report ingress points, each well formed
    (addresses already stored checked as leniently as then)."""
    path = "status.loadBalancer.ingress"
    ingress = items(lookup(new, path))
    if ingress and text(new, "spec.type") != "LoadBalancer":
        return [forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")]
    stored = stored_ingress_ips(old)
    errors: list[FieldError] = []
    for index, point in enumerate(ingress):
        where, ip, mode = f"{path}[{index}]", text(point, "ip"), lookup(point, "ipMode")
        if ip:
            errors += [invalid(f"{where}.ip", ip, message) for message in ip_errors(ip, stored)]
        if mode is not None and not ip:
            errors.append(forbidden(f"{where}.ipMode", "may not be specified when `ip` is not set"))
        elif mode is not None and mode not in _IP_MODES:
            errors.append(not_supported(f"{where}.ipMode", mode, _IP_MODES))
        elif mode is None and ip:
            errors.append(required(f"{where}.ipMode", "must be specified when `ip` is set"))
        errors += hostname_errors(point, f"{where}.hostname")
    return errors


def stored_ingress_ips(old: Any) -> frozenset[str]:
    """The load balancer addresses the stored status lists (upstream's `existingIngressIPs`)."""
    return _ips(old, "status.loadBalancer.ingress") - {""}


def hostname_errors(point: Any, path: str) -> list[FieldError]:
    """A load balancer's hostname: a DNS name, never an IP address."""
    hostname = text(point, "hostname")
    if not hostname:
        return []
    errors = [invalid(path, hostname, message) for message in is_dns1123_subdomain(hostname)]
    if parse_ip(hostname) is not None:
        errors.append(invalid(path, hostname, "must be a DNS name, not an IP address"))
    return errors


def _node_resources(new: Any, _: Any, __: str) -> list[FieldError]:
    """`ValidateNodeResources` and unique addresses: what a node reports about itself."""
    errors: list[FieldError] = []
    for key in ("capacity", "allocatable"):
        for name, value in sorted(mapping(new, f"status.{key}").items()):
            parsed = quantity(value)
            if parsed is not None:
                errors += quantity_errors(name, parsed, f"status.{key}[{name}]")
    seen: list[Any] = []
    for index, address in enumerate(items(lookup(new, "status.addresses"))):
        if address in seen:
            errors.append(duplicate(f"status.addresses[{index}]", address))
        seen.append(address)
    return errors


def _claim_resource_key(name: str, path: str) -> list[FieldError]:
    """Upstream's `validatePersistentVolumeClaimResourceKey`: a qualified name, and of the native
    resources only `storage` (the error names the map, not the key)."""
    errors = [invalid(path, name, message) for message in is_qualified_name(name)]
    if not errors and is_native(name) and name != "storage":
        errors.append(not_supported(path, name, ("storage",)))
    return errors


def _claim_resources(new: Any, _: Any, __: str) -> list[FieldError]:
    """A claim's reported capacity and allocated storage are never negative; resize statuses are known."""
    errors: list[FieldError] = []
    for name, value in sorted(mapping(new, "status.capacity").items()):
        parsed = quantity(value)
        if parsed is not None and parsed.value < 0:
            errors.append(invalid(f"status.capacity[{name}]", int(parsed.value), "must be a valid resource quantity"))
    statuses = "status.allocatedResourceStatuses"
    for name, state in sorted(mapping(new, statuses).items()):
        errors += _claim_resource_key(name, statuses)
        if state not in _RESIZE_STATUSES:
            # upstream reports the key, not the unknown state, as the refused value
            errors.append(not_supported(statuses, name, _RESIZE_STATUSES))
    for name, value in sorted(mapping(new, "status.allocatedResources").items()):
        key_errors = _claim_resource_key(name, "status.allocatedResources")
        if key_errors:
            errors += key_errors
            continue
        path = f"status.allocatedResources[{name}]"
        parsed = quantity(value)
        if parsed is not None and parsed.value < 0:
            errors.append(invalid(path, int(parsed.value), "must be a valid resource quantity"))
        elif parsed is not None:
            errors += quantity_errors("storage", parsed, path)
    return errors


def _namespace_phase(new: Any, _: Any, __: str) -> list[FieldError]:
    phase = text(new, "status.phase")
    if not lookup(new, "metadata.deletionTimestamp"):
        if phase != "Active":
            return [invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty")]
    elif phase != "Terminating":
        return [invalid("status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")]
    return []


def count(node: Any, path: str) -> int:
    value = lookup(node, path)
    return value if type(value) is int else 0


def replica_counts(fields: tuple[str, ...], *, ready_path: str = "readyReplicas") -> UpdateCheckFn:
    """Non-negative counters, none above `status.replicas`, available not above ready (the apps/RC rule)."""

    def check(new: Any, _: Any, __: str) -> list[FieldError]:
        errors: list[FieldError] = []
        for key in fields:
            value = lookup(new, f"status.{key}")
            if type(value) is int and value < 0:
                errors.append(invalid(f"status.{key}", value, "must be greater than or equal to 0"))
        replicas = count(new, "status.replicas")
        for key in fields:
            if key not in _NOT_COUNTED and count(new, f"status.{key}") > replicas:
                errors.append(invalid(f"status.{key}", count(new, f"status.{key}"), NOT_ABOVE_REPLICAS))
        available = count(new, "status.availableReplicas")
        if "availableReplicas" in fields and available > count(new, "status.readyReplicas"):
            errors.append(invalid("status.availableReplicas", available, f"cannot be greater than {ready_path}"))
        return errors

    return check


_RC_COUNTS: Final = ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration")

STATUS: Final[dict[tuple[str, str], UpdateTable]] = {
    ("", "Pod"): POD_STATUS,
    ("", "Service"): (UpdateCheck(_load_balancer),),
    ("", "PersistentVolumeClaim"): (UpdateCheck(_claim_resources),),
    ("", "ReplicationController"): (UpdateCheck(replica_counts(_RC_COUNTS)),),
}
NAMESPACE_STATUS: Final[UpdateTable] = (UpdateCheck(_namespace_phase),)
NODE_RESOURCES: Final = UpdateCheck(_node_resources)
