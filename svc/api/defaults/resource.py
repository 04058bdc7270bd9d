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


def _claim_spec(spec: Obj | None) -> None:
    for request in entries(child(spec, "devices"), "requests"):
        exactly = child(request, "exactly")
        if exactly is not None:
            _device_request(exactly)
        for alternative in entries(request, "firstAvailable"):
            _device_request(alternative)


def resource_claim(obj: Obj) -> None:
    _claim_spec(child(obj, "spec"))


def resource_claim_template(obj: Obj) -> None:
    _claim_spec(child(child(obj, "spec"), "spec"))
