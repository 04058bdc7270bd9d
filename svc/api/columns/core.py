"""Columns of the core kinds: services, endpoints, nodes, namespaces, config maps, secrets, service accounts,
persistent volumes and claims, resource quotas, and (coordination.k8s.io) leases."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.api.columns import descriptions
from svc.api.columns.common import (
    age_column,
    field,
    items,
    mapping,
    name_column,
    number,
    optional_text,
    quantity,
    text,
)
from svc.api.columns.selectors import NONE, format_labels
from svc.wire.views import Column, Obj

_UNKNOWN = "<unknown>"
_MAX_ENDPOINTS = 3
_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
_ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)
_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
_NODE_ROLE_LABEL = "kubernetes.io/role"


def _strings(obj: Any, *path: str) -> list[str]:
    return [value for value in items(obj, *path) if isinstance(value, str)]


def _cluster_ip(service: Obj) -> str:
    addresses = _strings(service, "spec", "clusterIPs")
    return addresses[0] if addresses else NONE


def _external_ip(service: Obj) -> str:
    external = _strings(service, "spec", "externalIPs")
    kind = text(service, "spec", "type")
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else NONE
    if kind == "LoadBalancer":
        ingress = items(service, "status", "loadBalancer", "ingress")
        balancers = sorted({text(point, "ip") or text(point, "hostname") for point in ingress} - {""})
        if external:
            return ",".join([*balancers, *external])
        return ",".join(balancers) or "<pending>"
    if kind == "ExternalName":
        return text(service, "spec", "externalName")
    return _UNKNOWN


def _service_ports(service: Obj) -> str:
    written = []
    for port in items(service, "spec", "ports"):
        exposed, node_port, protocol = number(port, "port"), number(port, "nodePort"), text(port, "protocol")
        written.append(f"{exposed}:{node_port}/{protocol}" if node_port > 0 else f"{exposed}/{protocol}")
    return ",".join(written) or NONE


SERVICE = (
    name_column(),
    Column("Type", "string", lambda obj: text(obj, "spec", "type"), description=descriptions.SERVICE_TYPE),
    Column("Cluster-IP", "string", _cluster_ip, description=descriptions.SERVICE_CLUSTER_IP),
    Column("External-IP", "string", _external_ip, description=descriptions.SERVICE_EXTERNAL_IPS),
    Column("Port(s)", "string", _service_ports, description=descriptions.SERVICE_PORTS),
    age_column(),
    Column(
        "Selector",
        "string",
        lambda obj: format_labels(field(obj, "spec", "selector")),
        description=descriptions.SERVICE_SELECTOR,
        priority=1,
    ),
)


def _host_port(host: str, port: Any) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _endpoints(obj: Obj) -> str:
    """Up to three `ip:port` pairs (bare IPs for a subset without ports), then "+ N more..."."""
    subsets = items(obj, "subsets")
    if not subsets:
        return NONE
    shown: list[str] = []
    more = False
    count = 0
    for subset in subsets:
        ips = [text(address, "ip") for address in items(subset, "addresses")]
        ports = items(subset, "ports")
        groups = [[_host_port(ip, number(port, "port")) for ip in ips] for port in ports] if ports else [ips]
        for group in groups:
            count += len(group)
            for candidate in group:
                if len(shown) == _MAX_ENDPOINTS:
                    more = True
                    break
                shown.append(candidate)
    written = ",".join(shown)
    return f"{written} + {count - _MAX_ENDPOINTS} more..." if more else written


ENDPOINTS = (
    name_column(),
    Column("Endpoints", "string", _endpoints, description=descriptions.ENDPOINTS_SUBSETS),
    age_column(),
)


def _node_status(node: Obj) -> str:
    ready = None
    for condition in items(node, "status", "conditions"):
        if text(condition, "type") == "Ready":
            ready = condition
    states = ["Unknown"] if ready is None else ["Ready" if text(ready, "status") == "True" else "NotReady"]
    if field(node, "spec", "unschedulable") is True:
        states.append("SchedulingDisabled")
    return ",".join(states)


def _node_roles(node: Obj) -> str:
    roles = set()
    for key, value in mapping(node, "metadata", "labels").items():
        if key.startswith(_NODE_ROLE_PREFIX) and len(key) > len(_NODE_ROLE_PREFIX):
            roles.add(key.removeprefix(_NODE_ROLE_PREFIX))
        elif key == _NODE_ROLE_LABEL and isinstance(value, str) and value:
            roles.add(value)
    return ",".join(sorted(roles)) or NONE


def _node_address(kind: str) -> Callable[[Obj], str]:
    def cell(node: Obj) -> str:
        for address in items(node, "status", "addresses"):
            if text(address, "type") == kind:
                return text(address, "address")
        return NONE

    return cell


def _node_info(key: str) -> Callable[[Obj], str]:
    return lambda node: text(node, "status", "nodeInfo", key) or _UNKNOWN


NODE = (
    name_column(),
    Column("Status", "string", _node_status, description="The status of the node"),
    Column("Roles", "string", _node_roles, description="The roles of the node"),
    age_column(),
    Column(
        "Version",
        "string",
        lambda node: text(node, "status", "nodeInfo", "kubeletVersion"),
        description=descriptions.NODE_KUBELET_VERSION,
    ),
    Column("Internal-IP", "string", _node_address("InternalIP"), description=descriptions.NODE_ADDRESSES, priority=1),
    Column("External-IP", "string", _node_address("ExternalIP"), description=descriptions.NODE_ADDRESSES, priority=1),
    Column("OS-Image", "string", _node_info("osImage"), description=descriptions.NODE_OS_IMAGE, priority=1),
    Column(
        "Kernel-Version",
        "string",
        _node_info("kernelVersion"),
        description=descriptions.NODE_KERNEL_VERSION,
        priority=1,
    ),
    Column(
        "Container-Runtime",
        "string",
        _node_info("containerRuntimeVersion"),
        description=descriptions.NODE_CONTAINER_RUNTIME,
        priority=1,
    ),
)

NAMESPACE = (
    name_column(),
    Column("Status", "string", lambda obj: text(obj, "status", "phase"), description="The status of the namespace"),
    age_column(),
)

CONFIG_MAP = (
    name_column(),
    Column(
        "Data",
        "string",
        lambda obj: len(mapping(obj, "data")) + len(mapping(obj, "binaryData")),
        description=descriptions.CONFIGMAP_DATA,
    ),
    age_column(),
)

SECRET = (
    name_column(),
    Column("Type", "string", lambda obj: text(obj, "type"), description=descriptions.SECRET_TYPE),
    Column(
        "Data",
        "string",
        lambda obj: len(mapping(obj, "data").keys() | mapping(obj, "stringData").keys()),
        description=descriptions.SECRET_DATA,
    ),
    age_column(),
)

SERVICE_ACCOUNT = (name_column(), age_column())


def _access_modes(modes: list[Any]) -> str:
    return ",".join(short for mode, short in _ACCESS_MODES if mode in modes)


def _phase_or_terminating(obj: Obj) -> str:
    if field(obj, "metadata", "deletionTimestamp") is not None:
        return "Terminating"
    return text(obj, "status", "phase")


def _storage_class(obj: Obj) -> str:
    annotations = mapping(obj, "metadata", "annotations")
    if _BETA_STORAGE_CLASS in annotations:
        return text(annotations, _BETA_STORAGE_CLASS)
    return text(obj, "spec", "storageClassName")


def _volume_claim(volume: Obj) -> str:
    claim = field(volume, "spec", "claimRef")
    return f"{text(claim, 'namespace')}/{text(claim, 'name')}" if isinstance(claim, dict) else ""


PERSISTENT_VOLUME = (
    name_column(),
    Column(
        "Capacity",
        "string",
        lambda obj: quantity(field(obj, "spec", "capacity", "storage")),
        description=descriptions.PV_CAPACITY,
    ),
    Column(
        "Access Modes",
        "string",
        lambda obj: _access_modes(items(obj, "spec", "accessModes")),
        description=descriptions.PV_ACCESS_MODES,
    ),
    Column(
        "Reclaim Policy",
        "string",
        lambda obj: text(obj, "spec", "persistentVolumeReclaimPolicy"),
        description=descriptions.PV_RECLAIM_POLICY,
    ),
    Column("Status", "string", _phase_or_terminating, description=descriptions.PV_PHASE),
    Column("Claim", "string", _volume_claim, description=descriptions.PV_CLAIM_REF),
    Column("StorageClass", "string", _storage_class, description="StorageClass of the pv"),
    Column(
        "VolumeAttributesClass",
        "string",
        optional_text("spec", "volumeAttributesClassName"),
        description="VolumeAttributesClass of the pv",
    ),
    Column("Reason", "string", lambda obj: text(obj, "status", "reason"), description=descriptions.PV_REASON),
    age_column(),
    Column(
        "VolumeMode",
        "string",
        optional_text("spec", "volumeMode"),
        description=descriptions.PV_VOLUME_MODE,
        priority=1,
    ),
)


def _bound(claim: Obj) -> bool:
    return text(claim, "spec", "volumeName") != ""


PERSISTENT_VOLUME_CLAIM = (
    name_column(),
    Column("Status", "string", _phase_or_terminating, description=descriptions.PVC_PHASE),
    Column("Volume", "string", lambda obj: text(obj, "spec", "volumeName"), description=descriptions.PVC_VOLUME_NAME),
    Column(
        "Capacity",
        "string",
        lambda obj: quantity(field(obj, "status", "capacity", "storage")) if _bound(obj) else "",
        description=descriptions.PVC_CAPACITY,
    ),
    Column(
        "Access Modes",
        "string",
        lambda obj: _access_modes(items(obj, "status", "accessModes")) if _bound(obj) else "",
        description=descriptions.PVC_ACCESS_MODES,
    ),
    Column("StorageClass", "string", _storage_class, description="StorageClass of the pvc"),
    Column(
        "VolumeAttributesClass",
        "string",
        optional_text("spec", "volumeAttributesClassName"),
        description="VolumeAttributesClass of the pvc",
    ),
    age_column(),
    Column(
        "VolumeMode",
        "string",
        optional_text("spec", "volumeMode"),
        description=descriptions.PVC_VOLUME_MODE,
        priority=1,
    ),
)


def _quota_usage(limits: bool) -> Callable[[Obj], str]:
    """`resource: used/hard` for each hard limit, split between the `limits.*` resources and the others."""

    def cell(quota: Obj) -> str:
        hard, used = mapping(quota, "status", "hard"), mapping(quota, "status", "used")
        written = [
            f"{resource}: {quantity(used.get(resource))}/{quantity(hard[resource])}"
            for resource in sorted(hard)
            if (resource.split(".")[0] == "limits" and "." in resource) == limits
        ]
        return ", ".join(written)

    return cell


RESOURCE_QUOTA = (
    name_column(),
    Column(
        "Request",
        "string",
        _quota_usage(limits=False),
        description="Request represents a minimum amount of cpu/memory that a container may consume.",
    ),
    Column(
        "Limit",
        "string",
        _quota_usage(limits=True),
        description="Limits control the maximum amount of cpu/memory that a container may use independent of "
        "contention on the node.",
    ),
    age_column(),
)

LEASE = (
    name_column(),
    Column("Holder", "string", lambda obj: text(obj, "spec", "holderIdentity"), description=descriptions.LEASE_HOLDER),
    age_column(),
)
