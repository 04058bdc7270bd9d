"""NetworkPolicy and IngressClass. Ingress has no defaults in networking.k8s.io/v1."""

from __future__ import annotations

from svc.api.defaults.walk import Obj, child, entries, fill_nil


def network_policy(obj: Obj) -> None:
    """A policy that names no types is an ingress policy, and an egress one too when it has egress rules."""
    spec = child(obj, "spec")
    if spec is None:
        return
    if not spec.get("policyTypes"):
        spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]
    for direction in ("ingress", "egress"):
        for rule in entries(spec, direction):
            for port in entries(rule, "ports"):
                fill_nil(port, "protocol", "TCP")


def ingress_class(obj: Obj) -> None:
    parameters = child(child(obj, "spec"), "parameters")
    if parameters is not None:
        fill_nil(parameters, "scope", "Cluster")
