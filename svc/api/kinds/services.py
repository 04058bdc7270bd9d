"""Services: DNS-label names (upstream's relaxed service name validation, on by default since 1.34), and
the fields a change of type leaves behind dropped, as upstream's `dropTypeDependentFields` drops them:
those the new type does not use, where the update left them as they were; and the load balancer status
of a Service that is no longer a load balancer (upstream 1.36 no longer has the gate
`AllowServiceLBStatusOnNonLB` that kept it, and refuses to set it through `/status`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.strategy import Strategy
from svc.machinery.validation import name_is_dns_label

_EXTERNAL = frozenset({"NodePort", "LoadBalancer"})
_TYPE_DEPENDENT = (
    "externalTrafficPolicy",
    "internalTrafficPolicy",
    "allocateLoadBalancerNodePorts",
    "loadBalancerClass",
)


def _uses(spec: dict[str, Any], name: str) -> bool:
    kind = spec.get("type") or "ClusterIP"
    if name == "externalTrafficPolicy":
        return kind in _EXTERNAL or (kind == "ClusterIP" and bool(spec.get("externalIPs")))
    if name == "internalTrafficPolicy":
        return kind != "ExternalName"
    return kind == "LoadBalancer"  # allocateLoadBalancerNodePorts, loadBalancerClass


def drop_type_dependent_fields(new: dict[str, Any], old: dict[str, Any]) -> None:
    spec, old_spec = new.get("spec"), old.get("spec") or {}
    if not isinstance(spec, dict):
        return
    status = new.get("status")
    if spec.get("type") != "LoadBalancer" and isinstance(status, dict) and status.get("loadBalancer"):
        new["status"] = {**status, "loadBalancer": {}}
    if spec.get("type") == old_spec.get("type"):
        return
    for name in _TYPE_DEPENDENT:
        if name in spec and not _uses(spec, name) and spec[name] == old_spec.get(name):
            del spec[name]


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(base, name_validator=name_is_dns_label, prepare_for_update=drop_type_dependent_fields)
