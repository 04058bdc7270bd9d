"""The resource.k8s.io strategies drop the fields of disabled features as upstream's do: a claim's and
a claim template's spec (`resourceclaimspec.DropDisabledFields`), a claim's status on `/status` writes,
a DeviceClass's extended resource name; each gate on keeps its fields, and a stored object using them
keeps them. A status write also forgets device statuses of deallocated devices
(`dropDeallocatedStatusDevices`)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from svc.api.brand import KUBERNETES
from svc.api.kinds import strategy_for
from svc.api.resources import ResourceSet
from svc.apiserver.feature_gates import FeatureGates
from tests.api.test_gated_fields import _lookup
from tests.api.validation.support import with_path
from tests.api.validation.test_dra_kinds import ALLOCATION, CLAIM, DEVICE_CLASS, TEMPLATE

RESOURCES = ResourceSet(KUBERNETES)
CLAIMS = ("resource.k8s.io", "v1", "resourceclaims")
TEMPLATES = ("resource.k8s.io", "v1", "resourceclaimtemplates")
CLASSES = ("resource.k8s.io", "v1", "deviceclasses")


def _strategy(where: tuple[str, str, str], **gates: bool):
    return strategy_for(RESOURCES.get(*where), KUBERNETES, gates=FeatureGates(gates))


def _created(where, obj: dict[str, Any], **gates: bool) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    _strategy(where, **gates).create(obj)
    return obj


def _updated(where, new: dict[str, Any], old: dict[str, Any], **gates: bool) -> dict[str, Any]:
    new, old = copy.deepcopy(new), copy.deepcopy(old)
    _strategy(where, **gates).update(new, old)
    return new


def _status_written(new: dict[str, Any], old: dict[str, Any], **gates: bool) -> dict[str, Any]:
    write = _strategy(CLAIMS, **gates).subresource_updates["status"]
    return write(copy.deepcopy(new), copy.deepcopy(old))


def _without(obj: dict[str, Any], path: str) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    *above, last = path.split(".")
    parent = _lookup(obj, ".".join(above))
    if isinstance(parent, list):
        parent.pop(int(last))
    else:
        parent.pop(last)
    return obj


CAPACITY = {"requests": {"memory": "1Gi"}}
DISTINCT = {"requests": ["gpu"], "distinctAttribute": "example.com/slot"}
# (gate, where, object with the field, dotted path of the field): spec fields of claims and templates
SPEC_CASES = [
    ("DRADeviceTaints", CLAIMS, CLAIM, "spec.devices.requests.0.exactly.tolerations"),
    (
        "DRADeviceTaints",
        CLAIMS,
        with_path(
            _without(CLAIM, "spec.devices.requests.0.exactly.tolerations"),
            "spec.devices.requests.1.firstAvailable.0.tolerations",
            [{"key": "k", "operator": "Exists"}],
        ),
        "spec.devices.requests.1.firstAvailable.0.tolerations",
    ),
    ("DRADeviceTaints", TEMPLATES, TEMPLATE, "spec.spec.devices.requests.0.exactly.tolerations"),
    (
        "DRAConsumableCapacity",
        CLAIMS,
        with_path(CLAIM, "spec.devices.requests.0.exactly.capacity", CAPACITY),
        "spec.devices.requests.0.exactly.capacity",
    ),
    (
        "DRAConsumableCapacity",
        TEMPLATES,
        with_path(TEMPLATE, "spec.spec.devices.requests.1.firstAvailable.1.capacity", CAPACITY),
        "spec.spec.devices.requests.1.firstAvailable.1.capacity",
    ),
    (
        "DRAConsumableCapacity",
        CLAIMS,
        with_path(CLAIM, "spec.devices.constraints.0.distinctAttribute", "example.com/slot"),
        "spec.devices.constraints.0.distinctAttribute",
    ),
    (
        "DRAExtendedResource",
        CLASSES,
        DEVICE_CLASS,
        "spec.extendedResourceName",
    ),
]
SPEC_IDS = [f"{case[0]}-{case[1][2]}-{case[3]}" for case in SPEC_CASES]


@pytest.mark.parametrize(("gate", "where", "obj", "path"), SPEC_CASES, ids=SPEC_IDS)
def test_a_create_keeps_the_field_while_its_gate_is_on(gate: str, where, obj: dict[str, Any], path: str) -> None:
    assert _lookup(_created(where, obj), path) == _lookup(obj, path) is not None


@pytest.mark.parametrize(("gate", "where", "obj", "path"), SPEC_CASES, ids=SPEC_IDS)
def test_a_create_drops_the_field_while_its_gate_is_off(gate: str, where, obj: dict[str, Any], path: str) -> None:
    assert _lookup(_created(where, obj, **{gate: False}), path) is None


@pytest.mark.parametrize(("gate", "where", "obj", "path"), SPEC_CASES, ids=SPEC_IDS)
def test_an_update_keeps_the_field_the_stored_object_uses(gate: str, where, obj: dict[str, Any], path: str) -> None:
    assert _lookup(_updated(where, obj, obj, **{gate: False}), path) == _lookup(obj, path)


@pytest.mark.parametrize(("gate", "where", "obj", "path"), SPEC_CASES, ids=SPEC_IDS)
def test_an_update_adding_the_field_loses_it(gate: str, where, obj: dict[str, Any], path: str) -> None:
    stored = _without(obj, path)
    assert _lookup(_updated(where, obj, stored, **{gate: False}), path) is None


def test_a_constraint_naming_only_a_distinct_attribute_is_dropped_whole() -> None:
    """A constraint needs `matchAttribute` or `distinctAttribute`: upstream keeps only constraints that match."""
    claim = with_path(CLAIM, "spec.devices.constraints", [DISTINCT])
    assert "constraints" not in _created(CLAIMS, claim, DRAConsumableCapacity=False)["spec"]["devices"]
    both = with_path(CLAIM, "spec.devices.constraints", [CLAIM["spec"]["devices"]["constraints"][0], DISTINCT])
    kept = _created(CLAIMS, both, DRAConsumableCapacity=False)["spec"]["devices"]["constraints"]
    assert kept == CLAIM["spec"]["devices"]["constraints"]


SHARED = {**ALLOCATION["devices"]["results"][0], "shareID": "0a1b2c3d-0000-4000-8000-000000000001"}


def _allocated(result: dict[str, Any], devices: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"allocation": {**copy.deepcopy(ALLOCATION), "devices": {"results": [result]}}}
    if devices is not None:
        status["devices"] = devices
    return with_path(CLAIM, "status", status)


REPORTED = {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", "conditions": []}
BOUND = {**ALLOCATION["devices"]["results"][0], "bindingConditions": ["ready"], "bindingFailureConditions": ["x"]}
RESULT = "status.allocation.devices.results.0"
# (gate, claim as the status write sends it, dotted path of the field)
STATUS_CASES = [
    ("DRAResourceClaimDeviceStatus", _allocated(ALLOCATION["devices"]["results"][0], [REPORTED]), "status.devices"),
    ("DRAConsumableCapacity", _allocated(SHARED), f"{RESULT}.shareID"),
    (
        "DRAConsumableCapacity",
        _allocated({**SHARED, "consumedCapacity": {"memory": "1Gi"}}),
        f"{RESULT}.consumedCapacity",
    ),
    (
        "DRAConsumableCapacity",
        _allocated(SHARED, [{**REPORTED, "shareID": SHARED["shareID"]}]),
        "status.devices.0.shareID",
    ),
    ("DRADeviceBindingConditions", _allocated(BOUND), f"{RESULT}.bindingConditions"),
    ("DRADeviceBindingConditions", _allocated(BOUND), f"{RESULT}.bindingFailureConditions"),
]
STATUS_IDS = [f"{case[0]}-{case[2]}" for case in STATUS_CASES]


@pytest.mark.parametrize(("gate", "claim", "path"), STATUS_CASES, ids=STATUS_IDS)
def test_a_status_write_keeps_the_field_while_its_gate_is_on(gate: str, claim: dict[str, Any], path: str) -> None:
    assert _lookup(_status_written(claim, CLAIM), path) == _lookup(claim, path) is not None


@pytest.mark.parametrize(("gate", "claim", "path"), STATUS_CASES, ids=STATUS_IDS)
def test_a_status_write_drops_the_field_while_its_gate_is_off(gate: str, claim: dict[str, Any], path: str) -> None:
    assert _lookup(_status_written(claim, CLAIM, **{gate: False}), path) is None


@pytest.mark.parametrize(("gate", "claim", "path"), STATUS_CASES, ids=STATUS_IDS)
def test_a_status_write_keeps_the_field_the_stored_claim_uses(gate: str, claim: dict[str, Any], path: str) -> None:
    assert _lookup(_status_written(claim, claim, **{gate: False}), path) == _lookup(claim, path)


def test_a_share_is_kept_when_the_stored_spec_asks_for_capacity() -> None:
    """Upstream's in-use check of the status drop reads the stored claim's spec too."""
    stored = with_path(CLAIM, "spec.devices.requests.0.exactly.capacity", CAPACITY)
    claim = with_path(_allocated(SHARED), "spec", stored["spec"])
    assert _lookup(_status_written(claim, stored, DRAConsumableCapacity=False), f"{RESULT}.shareID") is not None


def test_a_create_empties_the_status_whatever_the_gates() -> None:
    assert _created(CLAIMS, _allocated(SHARED, [REPORTED]))["status"] == {}


def test_a_deallocating_status_write_forgets_the_devices_reported_for_it() -> None:
    allocated = _allocated(ALLOCATION["devices"]["results"][0], [REPORTED])
    deallocated = with_path(CLAIM, "status", {"devices": [REPORTED]})
    assert "devices" not in _status_written(deallocated, allocated)["status"]


def test_a_status_write_keeps_device_statuses_of_devices_still_allocated() -> None:
    other = {**REPORTED, "device": "gpu-9"}
    allocated = _allocated(ALLOCATION["devices"]["results"][0], [REPORTED, other])
    assert _status_written(allocated, allocated)["status"]["devices"] == [REPORTED, other]
    deallocated = with_path(CLAIM, "status", {"devices": [REPORTED, other]})
    assert _status_written(deallocated, allocated)["status"]["devices"] == [other]


def test_a_deallocated_share_is_told_apart_from_another_share_of_the_device() -> None:
    second = {**SHARED, "shareID": "0a1b2c3d-0000-4000-8000-000000000002"}
    reported = [{**REPORTED, "shareID": SHARED["shareID"]}, {**REPORTED, "shareID": second["shareID"]}]
    stored = _allocated(SHARED, reported)
    new = copy.deepcopy(stored)
    new["status"]["allocation"]["devices"]["results"] = [second]
    assert _status_written(new, stored)["status"]["devices"] == reported[1:]


def test_deallocated_devices_stay_while_device_status_is_off_and_unused() -> None:
    """With DRAResourceClaimDeviceStatus off the status devices are dropped as a disabled field instead;
    a stored claim reporting devices keeps the rule."""
    allocated = _allocated(ALLOCATION["devices"]["results"][0], [REPORTED])
    deallocated = with_path(CLAIM, "status", {"devices": [REPORTED]})
    assert "devices" not in _status_written(deallocated, allocated, DRAResourceClaimDeviceStatus=False)["status"]
    other = {**REPORTED, "device": "gpu-9"}
    kept = with_path(CLAIM, "status", {"devices": [REPORTED, other]})
    stored = _allocated(ALLOCATION["devices"]["results"][0], [REPORTED, other])
    written = _status_written(kept, stored, DRAResourceClaimDeviceStatus=False)
    assert written["status"]["devices"] == [other]


def test_over_http_a_gate_turned_off_drops_claim_tolerations(svc_server_factory) -> None:
    api = svc_server_factory("--brand-profile=kubernetes", "--feature-gates=DRADeviceTaints=false").client()
    response = api.request("POST", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", body=CLAIM)
    assert response.status == 201, response.body
    assert "tolerations" not in response.json()["spec"]["devices"]["requests"][0]["exactly"]
