"""resource.k8s.io kinds (ResourceClaim, ResourceClaimTemplate, DeviceClass, ResourceSlice): upstream's
causes for invalid objects, valid fixtures pass, updates as upstream compares them."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from svc.api.validation.dra_claims import claim_status_errors
from tests.api.validation.support import assert_causes, causes, with_path
from tests.conftest import TOOLS
from tests.e2e.kubectl_runner import Kubectl

GROUP = "resource.k8s.io"
REQUIRED, INVALID, FORBIDDEN, DUPLICATE, NOT_SUPPORTED, TOO_MANY, TOO_LONG = (
    "FieldValueRequired",
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueDuplicate",
    "FieldValueNotSupported",
    "FieldValueTooMany",
    "FieldValueTooLong",
)

CLAIM: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaim",
    "metadata": {"name": "gpu", "namespace": "default"},
    "spec": {
        "devices": {
            "requests": [
                {
                    "name": "gpu",
                    "exactly": {
                        "deviceClassName": "gpu.example.com",
                        "selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "a100"'}}],
                        "tolerations": [{"key": "example.com/dirty", "operator": "Exists", "effect": "NoSchedule"}],
                    },
                },
                {
                    "name": "nic",
                    "firstAvailable": [
                        {"name": "fast", "deviceClassName": "nic.example.com"},
                        {"name": "slow", "deviceClassName": "nic.example.com", "allocationMode": "All"},
                    ],
                },
            ],
            "constraints": [{"requests": ["gpu", "nic/fast"], "matchAttribute": "example.com/numa"}],
            "config": [{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"mode": "x"}}}],
        }
    },
}
TEMPLATE: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "gpu", "namespace": "default"},
    "spec": {"metadata": {"labels": {"app": "ml"}}, "spec": copy.deepcopy(CLAIM["spec"])},
}
DEVICE_CLASS: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "gpu.example.com"},
    "spec": {
        "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
        "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}],
        "extendedResourceName": "example.com/gpu",
    },
}
SLICE: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceSlice",
    "metadata": {"name": "node-1-gpu"},
    "spec": {
        "driver": "gpu.example.com",
        "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
        "nodeName": "node-1",
        "devices": [
            {
                "name": "gpu-0",
                "attributes": {"model": {"string": "a100"}, "example.com/numa": {"int": 0}, "v": {"version": "1.2.3"}},
                "capacity": {"memory": {"value": "80Gi"}},
                "taints": [{"key": "example.com/dirty", "effect": "NoSchedule"}],
            }
        ],
    },
}


@pytest.mark.parametrize("obj", [CLAIM, TEMPLATE, DEVICE_CLASS, SLICE], ids=lambda obj: obj["kind"])
def test_valid_objects_pass(obj: dict[str, Any]) -> None:
    assert causes(GROUP, obj["kind"], obj) == []


REQUEST = "spec.devices.requests"
CLAIM_CASES = [
    (
        with_path(CLAIM, f"{REQUEST}.0.exactly.selectors.0.cel.expression", "device.drivr == 1"),
        [(f"{REQUEST}[0].exactly.selectors[0].cel.expression", INVALID, "compilation failed: ERROR: <input>:1:7")],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.0.exactly.selectors.0.cel.expression", "device.driver"),
        [(f"{REQUEST}[0].exactly.selectors[0].cel.expression", INVALID, "must evaluate to bool or the unknown type")],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.0.exactly.selectors.0", {}),
        [(f"{REQUEST}[0].exactly.selectors[0].cel", REQUIRED, "")],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.0.exactly.count", -1),
        [(f"{REQUEST}[0].exactly.count", INVALID, "must be greater than zero")],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.1.firstAvailable.1.count", 2),
        [(f"{REQUEST}[1].firstAvailable[1].count", INVALID, "must not be specified when allocationMode is 'All'")],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.0.exactly.allocationMode", "Some"),
        [(f"{REQUEST}[0].exactly.allocationMode", NOT_SUPPORTED, 'supported values: "All", "ExactCount"')],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.0.exactly.deviceClassName", ""),
        [(f"{REQUEST}[0].exactly.deviceClassName", REQUIRED, "")],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.1.exactly", {"deviceClassName": "x"}),
        [(f"{REQUEST}[1]", INVALID, "exactly one of `exactly` or `firstAvailable` is required, but multiple")],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.0.exactly", ...),
        [(f"{REQUEST}[0]", REQUIRED, "exactly one of `exactly` or `firstAvailable` is required")],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.1.name", "gpu"),
        [
            (f"{REQUEST}[1]", DUPLICATE, '"gpu"'),
            ("spec.devices.constraints[0].requests[1]", INVALID, "must be the name of a request in the claim"),
        ],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.0.exactly.tolerations.0.value", "x"),
        [(f"{REQUEST}[0].exactly.tolerations[0].value", INVALID, "must be empty for operator `Exists`")],
    ),
    (
        with_path(CLAIM, f"{REQUEST}.0.exactly.tolerations.0.effect", "Evict"),
        [(f"{REQUEST}[0].exactly.tolerations[0].effect", NOT_SUPPORTED, '"NoExecute", "NoSchedule", "None"')],
    ),
    (
        with_path(CLAIM, "spec.devices.constraints.0.matchAttribute", "numa"),
        [("spec.devices.constraints[0].matchAttribute", INVALID, "a fully qualified name must be a domain and a name")],
    ),
    (
        with_path(CLAIM, "spec.devices.constraints.0.matchAttribute", ...),
        [("spec.devices.constraints[0]", REQUIRED, 'exactly one of "matchAttribute" or "distinctAttribute"')],
    ),
    (
        with_path(CLAIM, "spec.devices.constraints.0.requests.1", "nic/medium"),
        [("spec.devices.constraints[0].requests[1]", INVALID, "must be the name of a request in the claim")],
    ),
    (
        with_path(CLAIM, "spec.devices.config.0.opaque.parameters", [1]),
        [("spec.devices.config[0].opaque.parameters", INVALID, "must be a valid JSON object")],
    ),
    (
        with_path(CLAIM, "spec.devices.config.0.opaque", ...),
        [("spec.devices.config[0].opaque", REQUIRED, "")],
    ),
    (
        with_path(CLAIM, "spec.devices.config.0.opaque.parameters", {"x": "y" * 10_240}),
        [("spec.devices.config[0].opaque.parameters", TOO_LONG, "may not be more than 10240 bytes")],
    ),
    (
        with_path(CLAIM, REQUEST, [{"name": f"r{i}", "exactly": {"deviceClassName": "c"}} for i in range(33)]),
        [
            (REQUEST, TOO_MANY, "must have at most 32 items"),
            ("spec.devices.constraints[0].requests[0]", INVALID, "must be the name of a request"),
            ("spec.devices.constraints[0].requests[1]", INVALID, "must be the name of a request"),
            ("spec.devices.config[0].requests[0]", INVALID, "must be the name of a request"),
        ],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), CLAIM_CASES)
def test_invalid_claims(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(GROUP, "ResourceClaim", obj), expected)


def test_template_checks_its_labels_and_claim() -> None:
    template = with_path(TEMPLATE, "spec.metadata.labels", {"app": "-bad-"})
    template = with_path(template, "spec.spec.devices.requests.0.exactly.count", -1)
    assert_causes(
        causes(GROUP, "ResourceClaimTemplate", template),
        [
            ("spec.metadata.labels", INVALID, "a valid label must be"),
            ("spec.spec.devices.requests[0].exactly.count", INVALID, "must be greater than zero"),
        ],
    )


def test_claim_and_template_specs_are_immutable() -> None:
    changed = with_path(CLAIM, f"{REQUEST}.0.exactly.count", 2)
    assert_causes(causes(GROUP, "ResourceClaim", changed, old=CLAIM), [("spec", INVALID, "field is immutable")])
    changed = with_path(TEMPLATE, "spec.metadata.labels.app", "other")
    assert_causes(causes(GROUP, "ResourceClaimTemplate", changed, old=TEMPLATE), [("spec", INVALID, "immutable")])


def test_claim_update_does_not_recompile_its_unchanged_spec() -> None:
    """An unchanged spec is not validated again, so a label change on an old claim is accepted."""
    relabeled = with_path(CLAIM, "metadata.labels", {"a": "b"})
    assert causes(GROUP, "ResourceClaim", relabeled, old=CLAIM) == []


def status_causes(new: dict[str, Any], old: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The causes of a write of `new` through the claim's status subresource over `old`."""
    return [(error.field, error.reason, error.body()) for error in claim_status_errors(new, old)]


ALLOCATION = {
    "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}]},
    "nodeSelector": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]
    },
}


def test_status_allocation_is_validated_then_frozen() -> None:
    allocated = with_path(CLAIM, "status", {"allocation": copy.deepcopy(ALLOCATION)})
    assert status_causes(allocated, CLAIM) == []
    bad = with_path(allocated, "status.allocation.devices.results.0.request", "tpu")
    assert_causes(
        status_causes(bad, CLAIM),
        [("status.allocation.devices.results[0].request", INVALID, "must be the name of a request")],
    )
    moved = with_path(allocated, "status.allocation.devices.results.0.device", "gpu-1")
    assert_causes(status_causes(moved, allocated), [("status.allocation", INVALID, "field is immutable")])


def test_reserved_for_needs_an_allocation() -> None:
    reserved = with_path(CLAIM, "status", {"reservedFor": [{"resource": "pods", "name": "p", "uid": "1"}]})
    assert_causes(
        status_causes(reserved, CLAIM),
        [("status.reservedFor", FORBIDDEN, "may not be specified when `allocated` is not set")],
    )


CLASS_CASES = [
    (
        with_path(DEVICE_CLASS, "spec.selectors.0.cel.expression", "device.driver =="),
        [("spec.selectors[0].cel.expression", INVALID, "compilation failed: ERROR: <input>:1:")],
    ),
    (
        with_path(DEVICE_CLASS, "spec.config.0.opaque.driver", "Not_A_Driver"),
        [("spec.config[0].opaque.driver", INVALID, "RFC 1123 subdomain")],
    ),
    (
        with_path(DEVICE_CLASS, "spec.extendedResourceName", "cpu"),
        [("spec.extendedResourceName", INVALID, "must be a valid extended resource name")],
    ),
    (
        with_path(DEVICE_CLASS, "spec.selectors", [{"cel": {"expression": "true"}}] * 33),
        [("spec.selectors", TOO_MANY, "must have at most 32 items")],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), CLASS_CASES)
def test_invalid_device_classes(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(GROUP, "DeviceClass", obj), expected)


def test_device_class_update_recompiles_only_changed_selectors() -> None:
    old = with_path(DEVICE_CLASS, "spec.selectors.0.cel.expression", "device.driver =")
    assert causes(GROUP, "DeviceClass", with_path(old, "metadata.labels", {"a": "b"}), old=old) == []
    changed = with_path(old, "spec.selectors.1", {"cel": {"expression": "true"}})
    fields = [cause[0] for cause in causes(GROUP, "DeviceClass", changed, old=old)]
    assert fields == ["spec.selectors[0].cel.expression"]


DEVICE = "spec.devices[0]"
SLICE_CASES = [
    (
        with_path(SLICE, "spec.allNodes", True),
        [("spec", INVALID, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`")],
    ),
    (
        with_path(SLICE, "spec.nodeName", ...),
        [("spec", REQUIRED, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`")],
    ),
    (
        with_path(with_path(SLICE, "spec.nodeName", ...), "spec.allNodes", False),
        [
            ("spec.allNodes", INVALID, "must be either unset or set to true"),
            ("spec", REQUIRED, "exactly one of"),
        ],
    ),
    (
        with_path(
            with_path(SLICE, "spec.nodeName", ...),
            "spec.nodeSelector",
            {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}] * 2},
        ),
        [("spec.nodeSelector.nodeSelectorTerms", INVALID, "must have exactly one node selector term")],
    ),
    (
        with_path(SLICE, "spec.pool", {"name": "", "resourceSliceCount": 0, "generation": -1}),
        [
            ("spec.pool.name", REQUIRED, ""),
            ("spec.pool.resourceSliceCount", INVALID, "must be greater than zero"),
            ("spec.pool.generation", INVALID, "must be greater than or equal to zero"),
        ],
    ),
    (
        with_path(SLICE, "spec.sharedCounters", [{"name": "mem", "counters": {"memory": {"value": "1Gi"}}}]),
        [("spec", INVALID, "only one of `sharedCounters` or `devices` is allowed")],
    ),
    (
        with_path(SLICE, "spec.devices.1", {"name": "gpu-0"}),
        [("spec.devices[1]", DUPLICATE, '"gpu-0"')],
    ),
    (
        with_path(SLICE, "spec.devices.0.name", "GPU_0"),
        [(f"{DEVICE}.name", INVALID, "RFC 1123 label")],
    ),
    (
        with_path(SLICE, "spec.devices.0.attributes.model", {"string": "a", "int": 1}),
        [(f"{DEVICE}.attributes[model]", INVALID, "exactly one value must be specified")],
    ),
    (
        with_path(SLICE, "spec.devices.0.attributes.v", {"version": "1.2"}),
        [(f"{DEVICE}.attributes[v].version", INVALID, "must be a string compatible with semver.org spec 2.0.0")],
    ),
    (
        with_path(SLICE, "spec.devices.0.attributes.model", {"string": "x" * 65}),
        [(f"{DEVICE}.attributes[model].string", TOO_LONG, "may not be more than 64 bytes")],
    ),
    (
        with_path(SLICE, "spec.devices.0.attributes", {"1model": {"bool": True}}),
        [(f"{DEVICE}.attributes", INVALID, "a valid C identifier must start with alphabetic character")],
    ),
    (
        with_path(SLICE, "spec.devices.0.attributes", {"a/b/c": {"bool": True}}),
        [(f"{DEVICE}.attributes", INVALID, "must not contain more than one slash")],
    ),
    (
        with_path(SLICE, "spec.devices.0.attributes", {f"a{i}": {"int": i} for i in range(32)}),
        [(DEVICE, INVALID, "the total number of attributes and capacities must not exceed 32")],
    ),
    (
        with_path(SLICE, "spec.devices.0.capacity.memory.requestPolicy", {"default": "1Gi"}),
        [(f"{DEVICE}.capacity[memory].requestPolicy", FORBIDDEN, "allowMultipleAllocations must be true")],
    ),
    (
        with_path(SLICE, "spec.devices.0.taints.0.effect", ""),
        [(f"{DEVICE}.taints[0].effect", REQUIRED, "")],
    ),
    (
        with_path(SLICE, "spec.devices.0.nodeName", "node-1"),
        [(DEVICE, INVALID, "can only be set if `perDeviceNodeSelection` is set to true")],
    ),
    (
        with_path(SLICE, "spec.devices", [{"name": f"d{i}"} for i in range(129)]),
        [("spec.devices", TOO_MANY, "must have at most 128 items")],
    ),
    (
        with_path(SLICE, "spec.devices.0.bindingConditions", ["ready"]),
        [(f"{DEVICE}.bindingFailureConditions", INVALID, "bindingFailureConditions are required")],
    ),
    (
        with_path(
            SLICE,
            "spec.devices.0.nodeAllocatableResourceMappings",
            {
                "cpu": {"capacityKey": "cores", "allocationMultiplier": "0"},
                "example.com/gpu": {},
                "memory": {"capacityKey": "memory", "allocationMultiplier": "2"},
            },
        ),
        [
            (f"{DEVICE}.nodeAllocatableResourceMappings[cpu].allocationMultiplier", INVALID, "must be positive"),
            (f"{DEVICE}.nodeAllocatableResourceMappings[cpu].capacityKey", "FieldValueNotFound", 'Not found: "cores"'),
            (
                f"{DEVICE}.nodeAllocatableResourceMappings[example.com/gpu]",
                INVALID,
                "must be a node allocatable resource name",
            ),
            (
                f"{DEVICE}.nodeAllocatableResourceMappings[example.com/gpu]",
                INVALID,
                "at least one of allocationMultiplier or capacityKey must be set",
            ),
        ],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), SLICE_CASES)
def test_invalid_slices(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(GROUP, "ResourceSlice", obj), expected)


def test_slice_with_taints_is_limited_to_64_devices() -> None:
    devices = [{"name": f"d{i}", "taints": [{"key": "k", "effect": "NoSchedule"}]} for i in range(65)]
    assert_causes(
        causes(GROUP, "ResourceSlice", with_path(SLICE, "spec.devices", devices)),
        [("spec.devices", TOO_MANY, "must have at most 64 items")],
    )


def test_slice_pool_driver_and_node_are_immutable() -> None:
    moved = with_path(with_path(SLICE, "spec.nodeName", "node-2"), "spec.pool.name", "node-2")
    assert_causes(
        causes(GROUP, "ResourceSlice", moved, old=SLICE),
        [("spec.pool.name", INVALID, "field is immutable"), ("spec.nodeName", INVALID, "field is immutable")],
    )


def test_v1beta1_objects_are_checked_in_v1_shape() -> None:
    claim = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com"}]}},
    }
    assert causes(GROUP, "ResourceClaim", claim) == []
    assert_causes(
        causes(GROUP, "ResourceClaim", with_path(claim, "spec.devices.requests.0.count", -1)),
        [("spec.devices.requests[0].exactly.count", INVALID, "must be greater than zero")],
    )
    beta_slice = with_path(SLICE, "apiVersion", "resource.k8s.io/v1beta1")
    beta_slice["spec"]["devices"] = [{"name": "gpu-0", "basic": {"attributes": {"v": {"version": "x"}}}}]
    assert_causes(
        causes(GROUP, "ResourceSlice", beta_slice),
        [(f"{DEVICE}.attributes[v].version", INVALID, "semver")],
    )


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


CLAIMS = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"


def test_invalid_claim_is_422_over_http_and_not_stored(api) -> None:
    claim = with_path(CLAIM, f"{REQUEST}.0.exactly.selectors.0.cel.expression", "device.driver")
    response = api.request("POST", CLAIMS, body=claim)
    assert response.status == 422
    status = response.json()
    assert status["reason"] == "Invalid"
    assert status["details"]["causes"] == [
        {
            "reason": INVALID,
            "message": 'Invalid value: "device.driver": must evaluate to bool or the unknown type, not string',
            "field": f"{REQUEST}[0].exactly.selectors[0].cel.expression",
        }
    ]
    assert api.request("GET", CLAIMS).json()["items"] == []


def test_claim_spec_update_is_refused_over_http(api) -> None:
    created = api.request("POST", CLAIMS, body=CLAIM)
    assert created.status == 201, created.json()
    claim = created.json()
    claim["spec"]["devices"]["requests"][0]["exactly"]["count"] = 3
    response = api.request("PUT", f"{CLAIMS}/gpu", body=claim)
    assert response.status == 422
    assert [cause["field"] for cause in response.json()["details"]["causes"]] == ["spec"]


SLICE_WITH_TWO_NODE_CHOICES = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu}
spec:
  driver: gpu.example.com
  pool: {name: node-1, resourceSliceCount: 1}
  nodeName: node-1
  allNodes: true
"""


def test_kubectl_prints_the_slice_node_choice_message(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(str(TOOLS / "kubectl"), server.kubeconfig)
    result = kubectl.run("create", "-f", "-", stdin=SLICE_WITH_TWO_NODE_CHOICES, check=False)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        'The ResourceSlice "node-1-gpu" is invalid: spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one '
        "of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"
    )
    kubectl.run("create", "-f", "-", stdin=SLICE_WITH_TWO_NODE_CHOICES.replace("  allNodes: true\n", ""))
    assert "node-1-gpu" in kubectl.run("get", "resourceslices", "-o", "name").stdout


def test_device_status_names_an_allocated_device() -> None:
    allocated = with_path(CLAIM, "status", {"allocation": copy.deepcopy(ALLOCATION)})
    device = {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", "data": {"ready": True}}
    reported = with_path(allocated, "status.devices", [device])
    assert status_causes(reported, allocated) == []
    stranger = with_path(reported, "status.devices.0.device", "gpu-9")
    assert_causes(
        status_causes(stranger, allocated),
        [("status.devices[0]", INVALID, "must be an allocated device in the claim")],
    )
    shared = with_path(reported, "status.devices.0.shareID", "ABC")
    assert_causes(
        status_causes(shared, allocated),
        [
            ("status.devices[0].shareID", INVALID, "error validating uid: invalid UUID length: 3"),
            ("status.devices[0]", INVALID, "must be an allocated device in the claim"),
        ],
    )


def test_status_writes_are_checked_over_http(api) -> None:
    claim = api.request("POST", CLAIMS, body=CLAIM).json()
    claim["status"] = {"reservedFor": [{"resource": "pods", "name": "p", "uid": "1"}]}
    refused = api.request("PUT", f"{CLAIMS}/gpu/status", body=claim)
    assert refused.status == 422
    assert [cause["field"] for cause in refused.json()["details"]["causes"]] == ["status.reservedFor"]
    claim["status"] = {"allocation": ALLOCATION, "reservedFor": claim["status"]["reservedFor"]}
    stored = api.request("PUT", f"{CLAIMS}/gpu/status", body=claim)
    assert stored.status == 200, stored.json()
    assert stored.json()["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-0"


def _network_ips(*ips: str) -> tuple[dict[str, Any], dict[str, Any]]:
    allocated = with_path(CLAIM, "status", {"allocation": copy.deepcopy(ALLOCATION)})
    device = {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", "networkData": {"ips": list(ips)}}
    return with_path(allocated, "status.devices", [device]), allocated


def test_network_data_ips_are_canonical_interface_addresses() -> None:
    assert status_causes(*_network_ips("10.9.8.7/24", "2001:db8::1/64")) == []
    assert_causes(
        status_causes(*_network_ips("10.9.8.7", "2001:DB8::1/64", "::ffff:10.1.2.3/120", "10.9.8.7/24", "10.9.8.7/24")),
        [
            (
                "status.devices[0].networkData.ips[0]",
                INVALID,
                'Invalid value: "10.9.8.7": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)',
            ),
            ("status.devices[0].networkData.ips[1]", INVALID, 'must be in canonical form ("2001:db8::1/64")'),
            ("status.devices[0].networkData.ips[2]", INVALID, 'must be in canonical form ("10.1.2.3/24")'),
            ("status.devices[0].networkData.ips[4]", DUPLICATE, 'Duplicate value: "10.9.8.7/24"'),
        ],
    )


def test_network_data_holds_at_most_16_ips() -> None:
    assert_causes(
        status_causes(*_network_ips(*(f"10.0.0.{n}/24" for n in range(17)))),
        [("status.devices[0].networkData.ips", TOO_MANY, "must have at most 16 items")],
    )
