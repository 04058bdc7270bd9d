"""Dynamic resource allocation claims (resource.k8s.io/v1): ResourceClaim and ResourceClaimTemplate.

A device request, exact or one of its prioritized alternatives, asks for exactly one device unless it
says otherwise, and a device toleration compares with `Equal`. The `timeAdded` upstream stamps on
device taints is a clock reading, not a constant default, and is left to the strategy.
"""

from __future__ import annotations

from svc.api.defaults.walk import Obj, child, entries, fill


def _device_request(request: Obj) -> None:
    fill(request, "allocationMode", "ExactCount")
    if request["allocationMode"] == "ExactCount":
        fill(request, "count", 1)
    for toleration in entries(request, "tolerations"):
        fill(toleration, "operator", "Equal")


def _claim_spec(spec: Obj | None, flat: bool) -> None:
    for request in entries(child(spec, "devices"), "requests"):
        exactly = child(request, "exactly")
        if exactly is not None:
            _device_request(exactly)
        alternatives = list(entries(request, "firstAvailable"))
        for alternative in alternatives:
            _device_request(alternative)
        if flat and not alternatives:
            _device_request(request)


def _flat(obj: Obj) -> bool:
    """v1beta1 keeps a request's device choice in the request itself (v1: under `exactly`)."""
    return str(obj.get("apiVersion", "")).endswith("/v1beta1")


def resource_claim(obj: Obj) -> None:
    _claim_spec(child(obj, "spec"), _flat(obj))


def resource_claim_template(obj: Obj) -> None:
    _claim_spec(child(child(obj, "spec"), "spec"), _flat(obj))
