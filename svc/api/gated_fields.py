"""Fields of a disabled feature dropped from writes, as upstream's strategies do (`dropDisabledFields`,
`dropDisabledPodStatusFields`, the PVC, StatefulSet and ResourceSlice strategies' equivalents).

Upstream clears a field whose feature gate is off on create and update, unless the stored object already
uses it (so an object written while the gate was on stays writable). Here that is one table: each entry
names its gate, where it applies (every pod spec, a pod's status, or one kind) and how to tell whether
the stored object uses the field and how to clear it; most entries are plain field patterns. Gates on by
default are here too where upstream drops their fields, for `--feature-gates=X=false`.

A pattern is a dotted path where `name[]` walks every item of a list and `name{}` every value of a
map, e.g. `containers[].lifecycle.stopSignal` or `devices[].capacity{}.requestPolicy`; the field at its
end is what is checked and cleared. Upstream tests a pointer field for nil but a list or map for
length, so an empty `{}` or `[]` counts as set only for a pattern marked `pointer`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from svc.api.validation.engine import items, lookup, mapping
from svc.api.validation.gates import restart_rules_in_use

POD_SPEC: Final = "pod spec"
"""Scope of an entry that applies to every kind carrying a pod spec, at the kind's pod spec path."""

_CONTAINER_LISTS: Final = ("containers", "initContainers", "ephemeralContainers")
_STATUS_LISTS: Final = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
_SLICE: Final = "resource.k8s.io/ResourceSlice"
_CLAIM: Final = "resource.k8s.io/ResourceClaim"
_TEMPLATE: Final = "resource.k8s.io/ResourceClaimTemplate"


def _parents(value: Any, steps: list[str]) -> Iterator[dict[str, Any]]:
    """The mappings that hold the pattern's last key."""
    if not steps:
        if isinstance(value, dict):
            yield value
        return
    step, rest = steps[0], steps[1:]
    if step.endswith("[]"):
        for item in items(lookup(value, step[:-2])):
            yield from _parents(item, rest)
    elif step.endswith("{}"):
        for item in mapping(value, step[:-2]).values():
            yield from _parents(item, rest)
    elif isinstance(value, dict):
        yield from _parents(value.get(step), rest)


@dataclass(frozen=True)
class Pattern:
    """One field, possibly in every item of some lists or maps; `prune_empty` also clears its parent
    when that is left empty (upstream sets a struct pointer to nil once its last field is gone);
    `pointer`: set whenever present, even empty (upstream's `!= nil` rather than `len(...) > 0`)."""

    path: str
    prune_empty: bool = False
    pointer: bool = False

    @functools.cached_property
    def _split(self) -> tuple[list[str], str]:
        *steps, last = self.path.split(".")
        return steps, last

    def in_use(self, obj: Any) -> bool:
        steps, last = self._split
        unset = (None,) if self.pointer else (None, [], {})
        return any(parent.get(last) not in unset for parent in _parents(obj, steps))

    def drop(self, obj: Any) -> None:
        steps, last = self._split
        for parent in _parents(obj, steps):
            parent.pop(last, None)
        if self.prune_empty and steps:
            *above, parent_key = steps
            for holder in _parents(obj, above):
                if holder.get(parent_key) == {}:
                    del holder[parent_key]


@dataclass(frozen=True)
class GatedField:
    """A feature's fields: cleared from a write while `gate` is off unless the stored object uses them."""

    gate: str
    scope: str
    """`POD_SPEC`, or `group/Kind` (core kinds: `/Kind`) for an entry of one kind."""
    at: str
    """Where the patterns start: relative to the pod spec for `POD_SPEC`, else to the object."""
    in_use: Callable[[Any], bool]
    drop: Callable[[Any], None]
    present: Callable[[Any], bool] | None = None
    """Whether a write carries anything `drop` would clear (None: always look), a cheap first check."""
    also: tuple[str, ...] = ()
    """Further gates the feature needs: its fields are dropped unless all of them are on too."""
    whole: bool = False
    """`in_use` reads the whole stored object rather than its part at `at` (a status rule that also
    counts the stored spec)."""

    @property
    def gates(self) -> tuple[str, ...]:
        return (self.gate, *self.also)


def fields(
    gate: str, scope: str, at: str, *patterns: Pattern, ratchets: bool = True, also: tuple[str, ...] = ()
) -> GatedField:
    """An entry whose feature is in use when any of `patterns` is set, and dropped by clearing them all;
    `ratchets=False`: dropped even when the stored object has them (upstream's ResourceHealthStatus)."""

    def drop(value: Any) -> None:
        for pattern in patterns:
            pattern.drop(value)

    def in_use(value: Any) -> bool:
        return any(pattern.in_use(value) for pattern in patterns)

    return GatedField(gate, scope, at, in_use if ratchets else _never, drop, present=in_use, also=also)


def _never(_: Any) -> bool:
    return False


def _containers(tail: str, *, prune_empty: bool = False, pointer: bool = False) -> tuple[Pattern, ...]:
    return tuple(Pattern(f"{kind}[].{tail}", prune_empty, pointer) for kind in _CONTAINER_LISTS)


def _statuses(tail: str, *, prune_empty: bool = False, pointer: bool = False) -> tuple[Pattern, ...]:
    return tuple(Pattern(f"{kind}[].{tail}", prune_empty, pointer) for kind in _STATUS_LISTS)


def _devices(*tails: str, pointer: bool = False) -> tuple[Pattern, ...]:
    """Fields of every device of a ResourceSlice's spec."""
    return tuple(Pattern(f"devices[].{tail}", pointer=pointer) for tail in tails)


def _requests(*tails: str, pointer: bool = False) -> tuple[Pattern, ...]:
    """Fields of a claim spec's exact requests and of their prioritized alternatives (`firstAvailable`)."""
    return tuple(
        Pattern(f"devices.requests[].{where}{tail}", pointer=pointer)
        for where in ("exactly.", "firstAvailable[].")
        for tail in tails
    )


_CLAIM_TOLERATIONS: Final = _requests("tolerations")
_REQUEST_CAPACITY: Final = _requests("capacity", pointer=True)
_CLAIM_CAPACITY: Final = (Pattern("devices.constraints[].distinctAttribute", pointer=True), *_REQUEST_CAPACITY)
_SHARES: Final = (
    Pattern("allocation.devices.results[].shareID", pointer=True),
    Pattern("allocation.devices.results[].consumedCapacity", pointer=True),
    Pattern("devices[].shareID", pointer=True),
)
_BINDING_CONDITIONS: Final = (
    Pattern("allocation.devices.results[].bindingConditions", pointer=True),
    Pattern("allocation.devices.results[].bindingFailureConditions", pointer=True),
)


def _capacity_in_spec(spec: Any) -> bool:
    return any(pattern.in_use(spec) for pattern in _CLAIM_CAPACITY)


def _drop_capacity(spec: Any) -> None:
    """Upstream drops request capacities and every constraint that named only a distinct attribute
    (a constraint needs one of the two attributes); a matching constraint loses its distinct one."""
    for pattern in _REQUEST_CAPACITY:
        pattern.drop(spec)
    devices = lookup(spec, "devices")
    constraints = items(lookup(devices, "constraints"))
    if not constraints:
        return
    kept = [
        {key: value for key, value in constraint.items() if key != "distinctAttribute"}
        for constraint in constraints
        if isinstance(constraint, dict) and constraint.get("matchAttribute") is not None
    ]
    if kept:
        devices["constraints"] = kept
    else:
        del devices["constraints"]


def _shares_present(status: Any) -> bool:
    return any(pattern.in_use(status) for pattern in _SHARES)


def _shares_in_use(claim: Any) -> bool:
    """Upstream's `draConsumableCapacityFeatureInUse` of a claim: its spec's or its status's share fields."""
    return _capacity_in_spec(lookup(claim, "spec")) or _shares_present(lookup(claim, "status"))


def _drop_shares(status: Any) -> None:
    for pattern in _SHARES:
        pattern.drop(status)


def _claim_spec_fields(scope: str, at: str) -> tuple[GatedField, ...]:
    """The ResourceClaim spec drops (upstream's `resourceclaimspec.DropDisabledFields`), shared by claims and
    claim templates; DRAPrioritizedList and DRAAdminAccess are GA in 1.36, so their fields always stay."""
    return (
        fields("DRADeviceTaints", scope, at, *_CLAIM_TOLERATIONS),
        GatedField("DRAConsumableCapacity", scope, at, _capacity_in_spec, _drop_capacity, present=_capacity_in_spec),
    )


_POD_RESOURCES: Final = Pattern("resources", pointer=True)
_POD_REQUESTS_OR_LIMITS: Final = (Pattern("resources.requests"), Pattern("resources.limits"))


def _pod_level_resources_in_use(spec: Any) -> bool:
    """Upstream's `podLevelResourcesInUse`: pod-level requests or limits, not an empty `resources`."""
    return any(pattern.in_use(spec) for pattern in _POD_REQUESTS_OR_LIMITS)


_DATA_SOURCE_REF: Final = Pattern("dataSourceRef", pointer=True)


def _names_another_namespace(spec: Any) -> bool:
    namespace = lookup(spec, "dataSourceRef.namespace")
    return isinstance(namespace, str) and namespace != ""


def _drop_restart_rules(spec: Any) -> None:
    """Upstream's `dropContainerRestartRules`: sidecars keep `restartPolicy: Always`."""
    for container in items(lookup(spec, "initContainers")):
        if isinstance(container, dict):
            if container.get("restartPolicy") not in (None, "Always"):
                del container["restartPolicy"]
            container.pop("restartPolicyRules", None)
    for kind in ("containers", "ephemeralContainers"):
        for container in items(lookup(spec, kind)):
            if isinstance(container, dict):
                container.pop("restartPolicy", None)
                container.pop("restartPolicyRules", None)


GATED_FIELDS: Final[tuple[GatedField, ...]] = (
    fields("ContainerStopSignals", POD_SPEC, "", *_containers("lifecycle.stopSignal", prune_empty=True)),
    fields(
        "ClusterTrustBundleProjection",
        POD_SPEC,
        "",
        Pattern("volumes[].projected.sources[].clusterTrustBundle", pointer=True),
    ),
    fields(
        "PodCertificateRequest", POD_SPEC, "", Pattern("volumes[].projected.sources[].podCertificate", pointer=True)
    ),
    fields("GenericWorkload", POD_SPEC, "", Pattern("schedulingGroup", pointer=True)),
    GatedField("ContainerRestartRules", POD_SPEC, "", restart_rules_in_use, _drop_restart_rules),
    fields("HostnameOverride", POD_SPEC, "", Pattern("hostnameOverride")),
    fields("EnvFiles", POD_SPEC, "", *_containers("env[].valueFrom.fileKeyRef", pointer=True)),
    GatedField(
        "PodLevelResources", POD_SPEC, "", _pod_level_resources_in_use, _POD_RESOURCES.drop, _POD_RESOURCES.in_use
    ),
    fields(
        "InPlacePodLevelResourcesVerticalScaling", "/Pod", "status", Pattern("resources"), Pattern("allocatedResources")
    ),
    fields("ResourceHealthStatus", "/Pod", "status", *_statuses("allocatedResourcesStatus"), ratchets=False),
    # The health message a kubelet reports: upstream's `dropDisabledPodStatusFields` clears every
    # `allocatedResourcesStatus[].resources[].message` of the three status lists unless the stored status
    # has one that is non-nil (`resourceHealthStatusMessageInUse`, so `""` counts).
    fields(
        "ResourceHealthStatusMessage",
        "/Pod",
        "status",
        *_statuses("allocatedResourcesStatus[].resources[].message", pointer=True),
    ),
    fields("DRAExtendedResource", "/Pod", "status", Pattern("extendedResourceClaimStatus", pointer=True)),
    fields("DRANodeAllocatableResources", "/Pod", "status", Pattern("nodeAllocatableResourceClaimStatuses")),
    # Upstream's `dropDisabledPodStatusFields`: the image digest a kubelet reports for an image volume.
    fields(
        "ImageVolumeWithDigest",
        "/Pod",
        "status",
        *_statuses("volumeMounts[].volumeStatus.image", prune_empty=True, pointer=True),
    ),
    # The ResourceSlice strategy's `dropDisabled...Fields`, one per gate.
    fields("DRANodeAllocatableResources", _SLICE, "spec", *_devices("nodeAllocatableResourceMappings")),
    fields("DRADeviceTaints", _SLICE, "spec", *_devices("taints")),
    fields(
        "DRAPartitionableDevices",
        _SLICE,
        "spec",
        Pattern("sharedCounters"),
        Pattern("perDeviceNodeSelection"),
        *_devices("consumesCounters", "nodeName", "allNodes"),
        *_devices("nodeSelector", pointer=True),
    ),
    fields(
        "DRADeviceBindingConditions",
        _SLICE,
        "spec",
        *_devices("bindingConditions", "bindingFailureConditions", "bindsToNode"),
        also=("DRAResourceClaimDeviceStatus",),
    ),
    fields(
        "DRAConsumableCapacity",
        _SLICE,
        "spec",
        *_devices("allowMultipleAllocations", "capacity{}.requestPolicy", pointer=True),
    ),
    fields(
        "DRAListTypeAttributes",
        _SLICE,
        "spec",
        *_devices(*(f"attributes{{}}.{kind}" for kind in ("ints", "bools", "strings", "versions")), pointer=True),
    ),
    # The ResourceClaim, ResourceClaimTemplate and DeviceClass strategies' drops.
    *_claim_spec_fields(_CLAIM, "spec"),
    *_claim_spec_fields(_TEMPLATE, "spec.spec"),
    fields("DRAResourceClaimDeviceStatus", _CLAIM, "status", Pattern("devices")),
    GatedField(
        "DRAConsumableCapacity", _CLAIM, "status", _shares_in_use, _drop_shares, present=_shares_present, whole=True
    ),
    fields("DRADeviceBindingConditions", _CLAIM, "status", *_BINDING_CONDITIONS),
    fields("DRAExtendedResource", "resource.k8s.io/DeviceClass", "spec", Pattern("extendedResourceName", pointer=True)),
    # Upstream drops the whole reference when it names another namespace, unless the stored claim has one.
    GatedField(
        "CrossNamespaceVolumeDataSource",
        "/PersistentVolumeClaim",
        "spec",
        _DATA_SOURCE_REF.in_use,
        _DATA_SOURCE_REF.drop,
        _names_another_namespace,
    ),
    fields(
        "MaxUnavailableStatefulSet", "apps/StatefulSet", "spec", Pattern("updateStrategy.rollingUpdate.maxUnavailable")
    ),
)
