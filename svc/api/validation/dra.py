"""The resource.k8s.io kinds' rules on every served version.

Upstream validates the internal type, which has v1's shape, so v1beta1 objects are checked as v1
and their errors carry v1's paths: a v1beta1 request without `firstAvailable` holds its device
choice in the request itself (v1: under `exactly`), and a v1beta1 device its attributes under
`basic` (v1: in the device). v1beta2 has v1's shape.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.dra_claims import DEVICE_CLASS, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE
from svc.api.validation.dra_slices import RESOURCE_SLICE
from svc.api.validation.dra_taint_rules import DEVICE_TAINT_RULE
from svc.api.validation.engine import Check, KindRules, UpdateCheck, items, run, run_update

GROUP: Final = "resource.k8s.io"
_REQUEST_KEEPS: Final = frozenset(("name", "firstAvailable"))


def _v1_requests(devices: Any) -> Any:
    if type(devices) is not dict:
        return devices
    requests = []
    for request in items(devices.get("requests")):
        if type(request) is dict and not request.get("firstAvailable") and "exactly" not in request:
            exactly = {key: value for key, value in request.items() if key not in _REQUEST_KEEPS}
            request = {key: value for key, value in request.items() if key in _REQUEST_KEEPS} | {"exactly": exactly}
        requests.append(request)
    return {**devices, "requests": requests}


def _v1_devices(spec: Any) -> Any:
    if type(spec) is not dict:
        return spec
    devices = []
    for device in items(spec.get("devices")):
        if type(device) is dict and type(device.get("basic")) is dict:
            device = {key: value for key, value in device.items() if key != "basic"} | device["basic"]
        devices.append(device)
    return {**spec, "devices": devices} if "devices" in spec else spec


def v1_shape(obj: Any) -> Any:
    """`obj` as v1 holds it (a shallow copy where v1beta1 differs; the object itself otherwise)."""
    if type(obj) is not dict or not str(obj.get("apiVersion", "")).endswith("/v1beta1"):
        return obj
    spec = obj.get("spec")
    if type(spec) is not dict:
        return obj
    kind = obj.get("kind")
    if kind == "ResourceClaim":
        spec = {**spec, "devices": _v1_requests(spec.get("devices"))}
    elif kind == "ResourceClaimTemplate" and type(spec.get("spec")) is dict:
        inner = spec["spec"]
        spec = {**spec, "spec": {**inner, "devices": _v1_requests(inner.get("devices"))}}
    elif kind == "ResourceSlice":
        spec = _v1_devices(spec)
    return {**obj, "spec": spec}


def _every_version(rules: KindRules) -> KindRules:
    return KindRules(
        create=(Check(lambda obj, base: run(rules.create, v1_shape(obj), base)),),
        update=(UpdateCheck(lambda new, old, base: run_update(rules.update, v1_shape(new), v1_shape(old), base)),),
        revalidate_on_update=rules.revalidate_on_update,
    )


RULES: Final[dict[tuple[str, str], KindRules]] = {
    (GROUP, "ResourceClaim"): _every_version(RESOURCE_CLAIM),
    (GROUP, "ResourceClaimTemplate"): _every_version(RESOURCE_CLAIM_TEMPLATE),
    (GROUP, "DeviceClass"): _every_version(DEVICE_CLASS),
    (GROUP, "ResourceSlice"): _every_version(RESOURCE_SLICE),
    (GROUP, "DeviceTaintRule"): DEVICE_TAINT_RULE,
}
