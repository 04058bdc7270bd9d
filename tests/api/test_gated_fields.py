"""Fields of a feature whose gate is off are dropped from writes unless the stored object already uses
them (upstream's `dropDisabledFields` family): one table (`svc.api.gated_fields`) covers pod specs of
every kind, pod status writes, ResourceSlices, PVCs and StatefulSets; turning the gate on keeps them."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from svc.api.brand import KUBERNETES
from svc.api.gated_fields import GATED_FIELDS
from svc.api.kinds import strategy_for
from svc.api.resources import ResourceSet
from svc.api.validation.engine import lookup
from svc.api.validation.gates import UPSTREAM_DEFAULTS
from svc.apiserver.feature_gates import FeatureGates
from tests.api.validation.support import with_path
from tests.api.validation.test_dra_kinds import SLICE
from tests.api.validation.test_pods import POD
from tests.api.validation.test_workloads import DEPLOYMENT, STATEFUL_SET

RESOURCES = ResourceSet(KUBERNETES)
PVC: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "data", "namespace": "default"},
    "spec": {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}},
        "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "source", "namespace": "elsewhere"},
    },
}


def _pod_with(path: str, value: Any) -> dict[str, Any]:
    return with_path(POD, f"spec.{path}", value)


PROJECTED = {"projected": {"sources": [{"clusterTrustBundle": {"name": "b", "path": "ca.pem"}}]}}
CERTIFICATE = {"projected": {"sources": [{"podCertificate": {"signerName": "example.com/s", "keyType": "ED25519"}}]}}

# (gate, resource path, object with the field, dotted path of the field)
CASES = [
    (
        "ContainerStopSignals",
        ("", "v1", "pods"),
        _pod_with("containers.0.lifecycle", {"stopSignal": "SIGUSR1"}),
        "spec.containers.0.lifecycle.stopSignal",
    ),
    (
        "ClusterTrustBundleProjection",
        ("", "v1", "pods"),
        _pod_with("volumes.0", {"name": "data", **PROJECTED}),
        "spec.volumes.0.projected.sources.0.clusterTrustBundle",
    ),
    (
        "PodCertificateRequest",
        ("apps", "v1", "deployments"),
        with_path(DEPLOYMENT, "spec.template.spec.volumes", [{"name": "cert", **CERTIFICATE}]),
        "spec.template.spec.volumes.0.projected.sources.0.podCertificate",
    ),
    (
        "GenericWorkload",
        ("", "v1", "pods"),
        _pod_with("schedulingGroup", {"podGroupName": "g"}),
        "spec.schedulingGroup",
    ),
    (
        "DRANodeAllocatableResources",
        ("resource.k8s.io", "v1", "resourceslices"),
        with_path(SLICE, "spec.devices.0.nodeAllocatableResourceMappings", {"cpu": {"allocationMultiplier": "2"}}),
        "spec.devices.0.nodeAllocatableResourceMappings",
    ),
    (
        "DRAListTypeAttributes",
        ("resource.k8s.io", "v1", "resourceslices"),
        with_path(SLICE, "spec.devices.0.attributes.cores", {"ints": [1, 2]}),
        "spec.devices.0.attributes.cores.ints",
    ),
    (
        "CrossNamespaceVolumeDataSource",
        ("", "v1", "persistentvolumeclaims"),
        PVC,
        "spec.dataSourceRef",
    ),
    (
        "MaxUnavailableStatefulSet",
        ("apps", "v1", "statefulsets"),
        with_path(
            STATEFUL_SET, "spec.updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}}
        ),
        "spec.updateStrategy.rollingUpdate.maxUnavailable",
    ),
]
IDS = [case[0] for case in CASES]

# Gates on by default whose fields upstream drops when they are turned off: (gate, pod with the field, path)
ON_BY_DEFAULT = [
    ("HostnameOverride", _pod_with("hostnameOverride", "web-0"), "spec.hostnameOverride"),
    (
        "EnvFiles",
        _pod_with("containers.0.env", [{"name": "A", "valueFrom": {"fileKeyRef": {"path": "a", "key": "A"}}}]),
        "spec.containers.0.env.0.valueFrom.fileKeyRef",
    ),
    ("PodLevelResources", _pod_with("resources", {"limits": {"cpu": "1"}}), "spec.resources"),
]


def _lookup(obj: Any, path: str) -> Any:
    node = obj
    for step in path.split("."):
        if isinstance(node, list):
            node = node[int(step)] if int(step) < len(node) else None
        elif isinstance(node, dict):
            node = node.get(step)
        else:
            return None
    return node


def _strategy(where: tuple[str, str, str], **gates: bool):
    return strategy_for(RESOURCES.get(*where), KUBERNETES, gates=FeatureGates(gates))


def _created(strategy, obj: dict[str, Any]) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    strategy.create(obj)
    return obj


def _updated(strategy, new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    new, old = copy.deepcopy(new), copy.deepcopy(old)
    strategy.update(new, old)
    return new


def test_the_defaults_used_without_a_server_are_the_servers_for_every_table_gate() -> None:
    served = FeatureGates()
    names = {gate for entry in GATED_FIELDS for gate in entry.gates}
    assert {name: UPSTREAM_DEFAULTS.enabled(name) for name in names} == {name: served.enabled(name) for name in names}


@pytest.mark.parametrize(("gate", "where", "obj", "path"), CASES, ids=IDS)
def test_a_create_drops_the_field_while_its_gate_is_off(gate: str, where, obj: dict[str, Any], path: str) -> None:
    assert _lookup(obj, path) is not None
    assert _lookup(_created(_strategy(where), obj), path) is None


@pytest.mark.parametrize(("gate", "where", "obj", "path"), CASES, ids=IDS)
def test_with_the_gate_on_the_field_is_kept(gate: str, where, obj: dict[str, Any], path: str) -> None:
    assert _lookup(_created(_strategy(where, **{gate: True}), obj), path) == _lookup(obj, path)


@pytest.mark.parametrize(("gate", "where", "obj", "path"), CASES, ids=IDS)
def test_an_update_keeps_the_field_the_stored_object_uses(gate: str, where, obj: dict[str, Any], path: str) -> None:
    assert _lookup(_updated(_strategy(where), obj, obj), path) == _lookup(obj, path)


@pytest.mark.parametrize(("gate", "where", "obj", "path"), CASES, ids=IDS)
def test_an_update_adding_the_field_loses_it(gate: str, where, obj: dict[str, Any], path: str) -> None:
    strategy = _strategy(where)
    stored = _created(strategy, obj)
    assert _lookup(_updated(strategy, obj, stored), path) is None


def test_a_lifecycle_left_empty_is_dropped_with_its_stop_signal() -> None:
    created = _created(_strategy(("", "v1", "pods")), _pod_with("containers.0.lifecycle", {"stopSignal": "SIGUSR1"}))
    assert "lifecycle" not in created["spec"]["containers"][0]


def test_a_lifecycle_with_hooks_keeps_them() -> None:
    hooks = {"preStop": {"exec": {"command": ["true"]}}, "stopSignal": "SIGUSR1"}
    created = _created(_strategy(("", "v1", "pods")), _pod_with("containers.0.lifecycle", hooks))
    assert created["spec"]["containers"][0]["lifecycle"] == {"preStop": {"exec": {"command": ["true"]}}}


def test_a_pod_status_write_drops_node_allocatable_claim_statuses_unless_stored() -> None:
    strategy = _strategy(("", "v1", "pods"))
    write = strategy.subresource_updates["status"]
    statuses = [{"resourceClaimName": "c", "containers": ["nginx"], "resources": {"cpu": "1"}}]
    stored = {**copy.deepcopy(POD), "status": {"phase": "Pending"}}
    new = {**copy.deepcopy(POD), "status": {"phase": "Pending", "nodeAllocatableResourceClaimStatuses": statuses}}
    assert "nodeAllocatableResourceClaimStatuses" not in write(copy.deepcopy(new), stored)["status"]
    stored_with = copy.deepcopy(new)
    assert write(copy.deepcopy(new), stored_with)["status"]["nodeAllocatableResourceClaimStatuses"] == statuses


def test_a_subresource_write_leaves_the_stored_object_untouched() -> None:
    """A status write shares the stored spec: dropping from it would change the stored object itself."""
    strategy = _strategy(("", "v1", "pods"))
    stored = _pod_with("containers.0.lifecycle", {})
    before = copy.deepcopy(stored)
    strategy.subresource_updates["status"]({**copy.deepcopy(stored), "status": {}}, stored)
    assert stored == before


def _container_restart(obj: dict[str, Any]) -> Any:
    return lookup(obj, "spec.template.spec")["containers"][0].get("restartPolicy")


def test_container_restart_rules_off_drops_a_template_policy_unless_stored() -> None:
    strategy = _strategy(("apps", "v1", "deployments"), ContainerRestartRules=False)
    with_policy = with_path(DEPLOYMENT, "spec.template.spec.containers.0.restartPolicy", "Never")
    assert _container_restart(_created(strategy, with_policy)) is None
    assert _container_restart(_updated(strategy, with_policy, with_policy)) == "Never"


PODS = "/api/v1/namespaces/default/pods"
STATEFUL_SETS = "/apis/apps/v1/namespaces/default/statefulsets"


def _post(api, collection: str, obj: dict[str, Any]) -> dict[str, Any]:
    response = api.request("POST", collection, body=obj)
    assert response.status == 201, response.body
    return response.json()


def test_over_http_the_default_gates_drop_and_the_flag_keeps(svc_server_factory) -> None:
    statefulset = with_path(
        STATEFUL_SET, "spec.updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}}
    )
    statefulset["metadata"] = {"name": "web"}
    pod = _pod_with("containers.0.lifecycle", {"stopSignal": "SIGUSR1"})
    pod["metadata"] = {"name": "p"}
    pod["spec"]["os"] = {"name": "linux"}
    default = svc_server_factory("--brand-profile=kubernetes").client()
    assert "maxUnavailable" not in _post(default, STATEFUL_SETS, statefulset)["spec"]["updateStrategy"]["rollingUpdate"]
    assert "lifecycle" not in _post(default, PODS, pod)["spec"]["containers"][0]
    gated = svc_server_factory(
        "--brand-profile=kubernetes", "--feature-gates=MaxUnavailableStatefulSet=true,ContainerStopSignals=true"
    ).client()
    assert _post(gated, STATEFUL_SETS, statefulset)["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] == 2
    assert _post(gated, PODS, pod)["spec"]["containers"][0]["lifecycle"] == {"stopSignal": "SIGUSR1"}


@pytest.mark.parametrize(("gate", "obj", "path"), ON_BY_DEFAULT, ids=[case[0] for case in ON_BY_DEFAULT])
def test_a_gate_on_by_default_keeps_its_field_and_turned_off_drops_it(
    gate: str, obj: dict[str, Any], path: str
) -> None:
    where = ("", "v1", "pods")
    assert _lookup(_created(_strategy(where), obj), path) == _lookup(obj, path)
    assert _lookup(_created(_strategy(where, **{gate: False}), obj), path) is None
    assert _lookup(_updated(_strategy(where, **{gate: False}), obj, obj), path) == _lookup(obj, path)


def test_resource_health_is_dropped_from_a_status_write_even_when_stored() -> None:
    """Upstream clears `allocatedResourcesStatus` whenever ResourceHealthStatus is off, stored or not."""
    health = [{"name": "example.com/gpu", "resources": [{"resourceID": "gpu-0", "health": "Healthy"}]}]
    status = {"phase": "Running", "containerStatuses": [{"name": "nginx", "allocatedResourcesStatus": health}]}
    pod = {**copy.deepcopy(POD), "status": status}
    write = _strategy(("", "v1", "pods"), ResourceHealthStatus=False).subresource_updates["status"]
    assert (
        "allocatedResourcesStatus"
        not in write(copy.deepcopy(pod), copy.deepcopy(pod))["status"]["containerStatuses"][0]
    )
    kept = _strategy(("", "v1", "pods")).subresource_updates["status"](copy.deepcopy(pod), copy.deepcopy(pod))
    assert kept["status"]["containerStatuses"][0]["allocatedResourcesStatus"] == health


def _slice_device(**fields: Any) -> dict[str, Any]:
    return with_path(SLICE, "spec.devices.0", {**SLICE["spec"]["devices"][0], **fields})


SLICES = ("resource.k8s.io", "v1", "resourceslices")
# ResourceSlice gates on by default whose fields the slice strategy drops when turned off: (gate, slice, path)
SLICE_ON_BY_DEFAULT = [
    ("DRADeviceTaints", SLICE, "spec.devices.0.taints"),
    ("DRAPartitionableDevices", with_path(SLICE, "spec.sharedCounters", [{"name": "c"}]), "spec.sharedCounters"),
    ("DRAPartitionableDevices", _slice_device(allNodes=True), "spec.devices.0.allNodes"),
    ("DRADeviceBindingConditions", _slice_device(bindsToNode=False), "spec.devices.0.bindsToNode"),
    ("DRADeviceBindingConditions", _slice_device(bindingConditions=["ready"]), "spec.devices.0.bindingConditions"),
    ("DRAResourceClaimDeviceStatus", _slice_device(bindingConditions=["ready"]), "spec.devices.0.bindingConditions"),
    ("DRAConsumableCapacity", _slice_device(allowMultipleAllocations=True), "spec.devices.0.allowMultipleAllocations"),
    (
        "DRAConsumableCapacity",
        _slice_device(capacity={"memory": {"value": "80Gi", "requestPolicy": {"default": "1Gi"}}}),
        "spec.devices.0.capacity.memory.requestPolicy",
    ),
]


@pytest.mark.parametrize(
    ("gate", "obj", "path"), SLICE_ON_BY_DEFAULT, ids=[f"{case[0]}-{case[2]}" for case in SLICE_ON_BY_DEFAULT]
)
def test_a_slice_gate_on_by_default_keeps_its_field_and_turned_off_drops_it(
    gate: str, obj: dict[str, Any], path: str
) -> None:
    assert _lookup(_created(_strategy(SLICES), obj), path) == _lookup(obj, path)
    assert _lookup(_created(_strategy(SLICES, **{gate: False}), obj), path) is None
    assert _lookup(_updated(_strategy(SLICES, **{gate: False}), obj, obj), path) == _lookup(obj, path)


def test_a_slice_keeps_the_capacity_a_dropped_request_policy_leaves() -> None:
    obj = _slice_device(capacity={"memory": {"value": "80Gi", "requestPolicy": {"default": "1Gi"}}})
    created = _created(_strategy(SLICES, DRAConsumableCapacity=False), obj)
    assert created["spec"]["devices"][0]["capacity"] == {"memory": {"value": "80Gi"}}


def test_a_list_attribute_dropped_leaves_its_attribute_empty_as_upstream_does() -> None:
    obj = with_path(SLICE, "spec.devices.0.attributes.cores", {"ints": [1, 2]})
    assert _created(_strategy(SLICES), obj)["spec"]["devices"][0]["attributes"]["cores"] == {}


def _image_volume_statuses(digest: bool) -> dict[str, Any]:
    mount: dict[str, Any] = {"name": "tools", "mountPath": "/tools"}
    if digest:
        mount["volumeStatus"] = {"image": {"imageRef": "example.com/tools@sha256:" + "a" * 64}}
    return {
        **copy.deepcopy(POD),
        "status": {"phase": "Running", "containerStatuses": [{"name": "nginx", "volumeMounts": [mount]}]},
    }


def _mount(pod: dict[str, Any]) -> dict[str, Any]:
    return pod["status"]["containerStatuses"][0]["volumeMounts"][0]


def test_an_image_volume_digest_is_dropped_from_a_status_write_unless_stored() -> None:
    write = _strategy(("", "v1", "pods")).subresource_updates["status"]
    assert "volumeStatus" not in _mount(write(_image_volume_statuses(True), _image_volume_statuses(False)))
    assert _mount(write(_image_volume_statuses(True), _image_volume_statuses(True)))["volumeStatus"]["image"]
    gated = _strategy(("", "v1", "pods"), ImageVolumeWithDigest=True).subresource_updates["status"]
    assert _mount(gated(_image_volume_statuses(True), _image_volume_statuses(False)))["volumeStatus"]["image"]


def test_a_cross_namespace_source_drops_the_whole_reference() -> None:
    """Upstream clears `dataSourceRef`, not its namespace alone."""
    assert "dataSourceRef" not in _created(_strategy(("", "v1", "persistentvolumeclaims")), PVC)["spec"]


def test_a_reference_in_the_same_namespace_is_kept_with_the_gate_off() -> None:
    local = with_path(PVC, "spec.dataSourceRef.namespace", ...)
    created = _created(_strategy(("", "v1", "persistentvolumeclaims")), local)
    assert created["spec"]["dataSourceRef"] == local["spec"]["dataSourceRef"]


def test_a_stored_reference_of_any_namespace_keeps_a_cross_namespace_one() -> None:
    """Upstream's `dataSourceRefInUse` asks only whether the stored claim has a reference."""
    stored = with_path(PVC, "spec.dataSourceRef.namespace", ...)
    updated = _updated(_strategy(("", "v1", "persistentvolumeclaims")), PVC, stored)
    assert updated["spec"]["dataSourceRef"] == PVC["spec"]["dataSourceRef"]


def test_an_empty_scheduling_group_counts_as_set() -> None:
    """Upstream tests the pointer for nil: `{}` is dropped from a new pod, and keeps a stored pod's field."""
    empty = _pod_with("schedulingGroup", {})
    assert "schedulingGroup" not in _created(_strategy(("", "v1", "pods")), empty)["spec"]
    named = _pod_with("schedulingGroup", {"podGroupName": "g"})
    assert _updated(_strategy(("", "v1", "pods")), named, empty)["spec"]["schedulingGroup"] == {"podGroupName": "g"}


def test_pod_level_resources_without_requests_or_limits_are_not_in_use() -> None:
    """Upstream's `podLevelResourcesInUse` looks at requests and limits, not at an empty `resources`."""
    strategy = _strategy(("", "v1", "pods"), PodLevelResources=False)
    stored = _pod_with("resources", {"requests": {}})
    updated = _updated(strategy, _pod_with("resources", {"limits": {"cpu": "1"}}), stored)
    assert "resources" not in updated["spec"]


def _with_health_message(message: bool) -> dict[str, Any]:
    resource: dict[str, Any] = {"resourceID": "gpu-0", "health": "Unhealthy"}
    if message:
        resource["message"] = "ECC error count exceeded threshold"
    health = [{"name": "claim:gpu/gpu", "resources": [resource]}]
    status = {"phase": "Running", "containerStatuses": [{"name": "nginx", "allocatedResourcesStatus": health}]}
    return {**copy.deepcopy(POD), "status": status}


def _health(pod: dict[str, Any]) -> dict[str, Any]:
    return pod["status"]["containerStatuses"][0]["allocatedResourcesStatus"][0]["resources"][0]


def test_a_health_message_is_dropped_while_its_gate_is_off_unless_stored() -> None:
    """ResourceHealthStatusMessage (beta, on) guards `message`; off, a status write keeps the rest of
    the health entry, and a stored message stays."""
    kept = _strategy(("", "v1", "pods")).subresource_updates["status"]
    assert "message" in _health(kept(_with_health_message(True), _with_health_message(False)))
    write = _strategy(("", "v1", "pods"), ResourceHealthStatusMessage=False).subresource_updates["status"]
    assert _health(write(_with_health_message(True), _with_health_message(False))) == {
        "resourceID": "gpu-0",
        "health": "Unhealthy",
    }
    assert "message" in _health(write(_with_health_message(True), _with_health_message(True)))


def test_an_empty_health_message_of_any_container_list_keeps_messages() -> None:
    """Upstream's `resourceHealthStatusMessageInUse` tests the message pointer for nil in every list of
    container statuses: a stored `""` of an init container keeps a new message of a regular one."""
    stored = _with_health_message(False)
    stored["status"]["initContainerStatuses"] = [
        {
            "name": "init",
            "allocatedResourcesStatus": [
                {"name": "claim:gpu/gpu", "resources": [{"resourceID": "gpu-1", "message": ""}]}
            ],
        }
    ]
    write = _strategy(("", "v1", "pods"), ResourceHealthStatusMessage=False).subresource_updates["status"]
    assert _health(write(_with_health_message(True), stored))["message"] == "ECC error count exceeded threshold"
