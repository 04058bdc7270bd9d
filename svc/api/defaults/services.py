"""Services: the defaults that need no cluster state.

Cluster IPs, IP families and their policy, node ports and health-check node ports are assigned by the
REST layer from the cluster's allocators, not by defaulting, and are left to it. Two upstream rules
here do change what the client sent: `sessionAffinityConfig` is dropped when the affinity is `None`,
and a `ClientIP` affinity without a timeout gets a fresh config with the 3-hour default.
"""

from __future__ import annotations

from typing import Final

from svc.api.defaults.walk import Obj, child, entries, fill, fill_nil, is_zero

CLIENT_IP_TIMEOUT_SECONDS: Final = 10800
_CLUSTER: Final = "Cluster"
_INTERNAL_TRAFFIC_TYPES: Final = frozenset({"ClusterIP", "NodePort", "LoadBalancer"})


def _affinity(spec: Obj) -> None:
    fill(spec, "sessionAffinity", "None")
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        client_ip = child(child(spec, "sessionAffinityConfig"), "clientIP")
        if client_ip is None or client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": CLIENT_IP_TIMEOUT_SECONDS}}


def _port(port: Obj) -> None:
    fill(port, "protocol", "TCP")
    if is_zero(port.get("targetPort")) and isinstance(port.get("port"), int):
        port["targetPort"] = port["port"]


def _externally_accessible(spec: Obj, kind: str) -> bool:
    return kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and bool(spec.get("externalIPs")))


def service(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    _affinity(spec)
    fill(spec, "type", "ClusterIP")
    for port in entries(spec, "ports"):
        _port(port)
    kind = spec["type"] if isinstance(spec["type"], str) else ""
    if _externally_accessible(spec, kind):
        fill(spec, "externalTrafficPolicy", _CLUSTER)
    if kind in _INTERNAL_TRAFFIC_TYPES:
        fill_nil(spec, "internalTrafficPolicy", _CLUSTER)
    if kind == "LoadBalancer":
        fill_nil(spec, "allocateLoadBalancerNodePorts", True)
        _ip_modes(obj)


def _ip_modes(obj: Obj) -> None:
    """A load balancer's IP-based ingress point routes as a virtual IP unless it says otherwise."""
    for point in entries(child(child(obj, "status"), "loadBalancer"), "ingress"):
        if point.get("ip") and point.get("ipMode") is None:
            point["ipMode"] = "VIP"
