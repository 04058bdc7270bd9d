"""PersistentVolume (`pkg/apis/core/validation`), CSIDriver and VolumeAttachment (`pkg/apis/storage/validation`).

A VolumeAttachment may carry a whole PersistentVolume spec inline, so the PV spec check is one function
both use (upstream's `ValidatePersistentVolumeSpec`, with capacity and reclaim policy skipped inline).
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import (
    Check,
    Immutable,
    KindRules,
    UpdateCheck,
    go_struct,
    items,
    lookup,
    mapping,
    text,
)
from svc.api.validation.resources import quantity
from svc.api.validation.storage import ACCESS_MODES
from svc.api.validation.volume_sources import source_errors
from svc.machinery.field_errors import FieldError, Rendered, duplicate, forbidden, invalid, not_supported, required
from svc.machinery.gotext import json_marshal
from svc.machinery.validation import is_dns1123_subdomain, is_qualified_name

SOURCES: Final = (
    "awsElasticBlockStore",
    "azureDisk",
    "azureFile",
    "cephfs",
    "cinder",
    "csi",
    "fc",
    "flexVolume",
    "flocker",
    "gcePersistentDisk",
    "glusterfs",
    "hostPath",
    "iscsi",
    "local",
    "nfs",
    "photonPersistentDisk",
    "portworxVolume",
    "quobyte",
    "rbd",
    "scaleIO",
    "storageos",
    "vsphereVolume",
)
_RECLAIM_POLICIES: Final = ("Delete", "Recycle", "Retain")
_OPERATORS: Final = ("DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn")


def _requirement(requirement: Any, path: str) -> list[FieldError]:
    """One node selector requirement: a qualified key and values that fit the operator."""
    errors: list[FieldError] = []
    key, operator, values = (
        text(requirement, "key"),
        lookup(requirement, "operator"),
        items(lookup(requirement, "values")),
    )
    if operator in ("In", "NotIn") and not values:
        errors.append(required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist") and values:
        errors.append(forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif operator in ("Gt", "Lt") and len(values) != 1:
        errors.append(required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    elif operator not in _OPERATORS:
        errors.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
    return errors + [invalid(f"{path}.key", key, message) for message in is_qualified_name(key)]


def _node_affinity(affinity: Any, path: str) -> list[FieldError]:
    selector = lookup(affinity, "required")
    if not isinstance(selector, dict):
        return [required(f"{path}.required", "must specify required node constraints")]
    terms_path = f"{path}.required.nodeSelectorTerms"
    terms = items(selector.get("nodeSelectorTerms"))
    errors = [] if terms else [required(terms_path, "must have at least one node selector term")]
    for index, term in enumerate(terms):
        for kind in ("matchExpressions", "matchFields"):
            for number, requirement in enumerate(items(lookup(term, kind))):
                errors += _requirement(requirement, f"{terms_path}[{index}].{kind}[{number}]")
    return errors


def _capacity(spec: Any, path: str) -> list[FieldError]:
    capacity = mapping(spec, "capacity")
    errors = [] if capacity else [required(f"{path}.capacity")]
    if "storage" not in capacity or len(capacity) > 1:
        errors.append(not_supported(f"{path}.capacity", capacity, ("storage",)))
    for name, value in capacity.items():
        parsed = quantity(value)
        if parsed is not None and parsed.value <= 0:
            errors.append(invalid(f"{path}.capacity[{name}]", str(parsed), "must be greater than zero"))
    return errors


def _source(spec: Any, path: str) -> list[FieldError]:
    errors = source_errors(spec, path)
    if lookup(spec, "local") is not None and lookup(spec, "nodeAffinity") is None:
        errors.append(required(f"{path}.nodeAffinity", "Local volume requires node affinity"))
    return errors


def persistent_volume_spec_errors(spec: Any, path: str, *, inline: bool) -> list[FieldError]:
    """Upstream's `ValidatePersistentVolumeSpec` (access modes, capacity, one source, class, mode, affinity)."""
    modes = items(lookup(spec, "accessModes"))
    errors = [] if modes else [required(f"{path}.accessModes")]
    errors += [not_supported(f"{path}.accessModes", mode, ACCESS_MODES) for mode in modes if mode not in ACCESS_MODES]
    if "ReadWriteOncePod" in modes and len(modes) > 1:
        errors.append(forbidden(f"{path}.accessModes", "may not use ReadWriteOncePod with other access modes"))
    if not inline:
        errors += _capacity(spec, path)
        policy = lookup(spec, "persistentVolumeReclaimPolicy")
        if policy and policy not in _RECLAIM_POLICIES:
            errors.append(not_supported(f"{path}.persistentVolumeReclaimPolicy", policy, _RECLAIM_POLICIES))
    class_name = text(spec, "storageClassName")
    if class_name:
        errors += [invalid(f"{path}.storageClassName", class_name, m) for m in is_dns1123_subdomain(class_name)]
    mode = lookup(spec, "volumeMode")
    if mode is not None and mode not in ("Block", "Filesystem"):
        errors.append(not_supported(f"{path}.volumeMode", mode, ("Block", "Filesystem")))
    if lookup(spec, "nodeAffinity") is not None:
        errors += _node_affinity(lookup(spec, "nodeAffinity"), f"{path}.nodeAffinity")
    return errors + _source(spec, path)


def _volume_source(spec: Any) -> dict[str, Any]:
    return {key: spec[key] for key in SOURCES if key in spec}


def _persistent_volume_update(new: Any, old: Any, _: str) -> list[FieldError]:
    """The volume source and mode are fixed once created; node affinity may only be added."""
    new_spec, old_spec = mapping(new, "spec"), mapping(old, "spec")
    errors: list[FieldError] = []
    if _volume_source(new_spec) != _volume_source(old_spec):
        errors.append(
            forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation")
        )
    if new_spec.get("volumeMode") != old_spec.get("volumeMode"):
        errors.append(invalid("volumeMode", new_spec.get("volumeMode"), "field is immutable"))
    if old_spec.get("nodeAffinity") is not None and new_spec.get("nodeAffinity") != old_spec.get("nodeAffinity"):
        shown = go_struct(new_spec.get("nodeAffinity"), ("required",))
        errors.append(invalid("nodeAffinity", shown, "field is immutable"))
    return errors


PERSISTENT_VOLUME = KindRules(
    create=(Check(lambda obj, _: persistent_volume_spec_errors(mapping(obj, "spec"), "spec", inline=False)),),
    update=(UpdateCheck(_persistent_volume_update),),
)

# --- storage.k8s.io CSIDriver ---------------------------------------------------------------------

_FS_GROUP_POLICIES: Final = ("File", "None", "ReadWriteOnceWithFSType")
_LIFECYCLE_MODES: Final = ("Persistent", "Ephemeral")
_TEN_MINUTES: Final = 600


def _csi_driver(obj: Any, _: str) -> list[FieldError]:
    spec = mapping(obj, "spec")
    errors = [
        required(f"spec.{path}")
        for key, path in (
            ("attachRequired", "attachedRequired"),
            ("podInfoOnMount", "podInfoOnMount"),
            ("storageCapacity", "storageCapacity"),
        )
        if spec.get(key) is None
    ]
    policy = spec.get("fsGroupPolicy")
    if policy is not None and policy not in _FS_GROUP_POLICIES:
        errors.append(not_supported("spec.fsGroupPolicy", policy, _FS_GROUP_POLICIES))
    audiences: set[str] = set()
    for index, request in enumerate(items(spec.get("tokenRequests"))):
        path, audience = f"spec.tokenRequests[{index}]", text(request, "audience")
        if audience in audiences:
            errors.append(duplicate(f"{path}.audience", audience))
            continue
        audiences.add(audience)
        seconds = lookup(request, "expirationSeconds")
        if isinstance(seconds, int) and seconds < _TEN_MINUTES:
            errors.append(
                invalid(f"{path}.expirationSeconds", seconds, "may not specify a duration less than 10 minutes")
            )
        if isinstance(seconds, int) and seconds > 1 << 32:
            errors.append(
                invalid(f"{path}.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds")
            )
    for mode in items(spec.get("volumeLifecycleModes")):
        if mode not in _LIFECYCLE_MODES:
            errors.append(not_supported("spec.volumeLifecycleModes", mode, _LIFECYCLE_MODES))
    period = spec.get("nodeAllocatableUpdatePeriodSeconds")
    if isinstance(period, int) and period < 10:
        errors.append(
            invalid("spec.nodeAllocatableUpdatePeriodSeconds", period, "must be greater than or equal to 10 seconds")
        )
    return errors


def _attach_required_fixed(new: Any, old: Any, _: str) -> list[FieldError]:
    value = lookup(new, "spec.attachRequired")
    return (
        []
        if value == lookup(old, "spec.attachRequired")
        else [invalid("spec.attachedRequired", value, "field is immutable")]
    )


CSI_DRIVER = KindRules(
    create=(Check(_csi_driver),),
    update=(UpdateCheck(_attach_required_fixed), Immutable("spec.volumeLifecycleModes")),
)

# --- storage.k8s.io VolumeAttachment --------------------------------------------------------------

_EXACTLY_ONE_SOURCE: Final = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"


def _volume_attachment(obj: Any, _: str) -> list[FieldError]:
    spec = mapping(obj, "spec")
    attacher = text(spec, "attacher")
    errors = [] if attacher else [required("spec.attacher")]
    volume, inline = lookup(spec, "source.persistentVolumeName"), lookup(spec, "source.inlineVolumeSpec")
    if volume is None and inline is None:
        errors.append(required("spec.source", _EXACTLY_ONE_SOURCE))
    elif volume is not None and inline is not None:
        errors.append(forbidden("spec.source", _EXACTLY_ONE_SOURCE))
    elif volume is not None and not volume:
        errors.append(required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
    elif inline is not None:
        errors += persistent_volume_spec_errors(inline, "spec.source.inlineVolumeSpec", inline=True)
    node = text(spec, "nodeName")
    errors += [invalid("spec.nodeName", node, message) for message in is_dns1123_subdomain(node)]
    if attacher:
        errors += [invalid("spec.attacher", attacher, message) for message in is_dns1123_subdomain(attacher.lower())]
    if isinstance(volume, str) and volume:
        errors += [invalid("spec.source.persistentVolumeName", volume, m) for m in is_dns1123_subdomain(volume)]
    return errors


def _attachment_spec_fixed(new: Any, old: Any, _: str) -> list[FieldError]:
    spec = mapping(new, "spec")
    if spec == mapping(old, "spec"):
        return []
    source = go_struct(spec.get("source"), ("persistentVolumeName", "inlineVolumeSpec")).text
    attacher, node = json_marshal(text(spec, "attacher")), json_marshal(text(spec, "nodeName"))
    shown = Rendered(f'{{"Attacher":{attacher},"Source":{source},"NodeName":{node}}}')
    return [invalid("spec", shown, "field is immutable")]


VOLUME_ATTACHMENT = KindRules(create=(Check(_volume_attachment),), update=(UpdateCheck(_attachment_spec_fixed),))

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("", "PersistentVolume"): PERSISTENT_VOLUME,
    ("storage.k8s.io", "CSIDriver"): CSI_DRIVER,
    ("storage.k8s.io", "VolumeAttachment"): VOLUME_ATTACHMENT,
}
