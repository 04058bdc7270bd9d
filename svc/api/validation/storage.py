"""StorageClass (`pkg/apis/storage/validation`) and PersistentVolumeClaim (core) validation."""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import Check, KindRules, OneOf, UpdateCheck, items, join, lookup, mapping
from svc.api.validation.resources import quantity
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported, required
from svc.machinery.gotext import json_marshal
from svc.machinery.validation import is_dns1123_subdomain, is_qualified_name

ACCESS_MODES: Final = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")


def provisioner_errors(provisioner: Any, path: str) -> list[FieldError]:
    """Upstream's `validateProvisioner` (a StorageClass's provisioner, a VolumeAttributesClass's driver)."""
    if not provisioner:
        return [required(path)]
    return [invalid(path, provisioner, message) for message in is_qualified_name(str(provisioner).lower())]


def _provisioner(obj: Any, _: str) -> list[FieldError]:
    return provisioner_errors(lookup(obj, "provisioner"), "provisioner")


def _storage_class_update(new: Any, old: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if (lookup(new, "parameters") or {}) != (lookup(old, "parameters") or {}):
        errors.append(forbidden("parameters", "updates to parameters are forbidden."))
    if lookup(new, "provisioner") != lookup(old, "provisioner"):
        errors.append(forbidden("provisioner", "updates to provisioner are forbidden."))
    if lookup(new, "reclaimPolicy") != lookup(old, "reclaimPolicy"):
        errors.append(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    if lookup(new, "volumeBindingMode") != lookup(old, "volumeBindingMode"):
        errors.append(invalid("volumeBindingMode", lookup(new, "volumeBindingMode"), "field is immutable"))
    return errors


STORAGE_CLASS = KindRules(
    create=(
        Check(_provisioner),
        OneOf("reclaimPolicy", ("Delete", "Retain"), optional=True),
        OneOf("volumeBindingMode", ("Immediate", "WaitForFirstConsumer")),
    ),
    update=(UpdateCheck(_storage_class_update),),
    update_first=True,
)


def claim_spec_errors(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `ValidatePersistentVolumeClaimSpec` (access modes, storage request, class, volume mode)."""
    errors: list[FieldError] = []
    modes = items(lookup(spec, "accessModes"))
    if not modes:
        errors.append(required(join(base, "accessModes"), "at least 1 access mode is required"))
    for mode in modes:
        if mode not in ACCESS_MODES:
            errors.append(not_supported(join(base, "accessModes"), mode, ACCESS_MODES))
    if "ReadWriteOncePod" in modes and any(mode != "ReadWriteOncePod" and mode in ACCESS_MODES for mode in modes):
        errors.append(forbidden(join(base, "accessModes"), "may not use ReadWriteOncePod with other access modes"))
    storage_path = join(base, "resources[storage]")
    storage = lookup(spec, "resources.requests.storage")
    parsed = quantity(storage) if storage is not None else None
    if storage is None:
        errors.append(required(storage_path))
    elif parsed is not None and parsed.value <= 0:
        errors.append(invalid(storage_path, str(parsed), "must be greater than zero"))
    class_name = lookup(spec, "storageClassName")
    if isinstance(class_name, str) and class_name:
        errors += [invalid(join(base, "storageClassName"), class_name, m) for m in is_dns1123_subdomain(class_name)]
    mode = lookup(spec, "volumeMode")
    if mode is not None and mode not in ("Block", "Filesystem"):
        errors.append(not_supported(join(base, "volumeMode"), mode, ("Block", "Filesystem")))
    return errors


_IMMUTABLE_CLAIM: Final = (
    "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
)


def _claim_update(new: Any, old: Any, _: str) -> list[FieldError]:
    """A claim's spec is fixed once created; only `volumeName` may be set once, and a bound claim may grow."""
    new_spec, old_spec = dict(mapping(new, "spec")), dict(mapping(old, "spec"))
    if not old_spec.get("volumeName"):
        old_spec["volumeName"] = new_spec.get("volumeName")
        old_spec = {key: value for key, value in old_spec.items() if value is not None}
    bound = lookup(new, "status.phase") == "Bound"
    errors: list[FieldError] = []
    if bound:
        for spec in (new_spec, old_spec):
            spec.pop("resources", None)
            spec.pop("volumeAttributesClassName", None)
    if new_spec != old_spec:
        diff = f"  core.PersistentVolumeClaimSpec{{\n- \t{json_marshal(old_spec)}\n+ \t{json_marshal(new_spec)}\n  }}\n"
        errors.append(forbidden("spec", f"{_IMMUTABLE_CLAIM}\n{diff}"))
    new_size, old_size = (
        quantity(lookup(new, "spec.resources.requests.storage") or 0),
        quantity(lookup(old, "spec.resources.requests.storage") or 0),
    )
    if new_size is not None and old_size is not None and new_size < old_size:
        errors.append(forbidden("spec.resources.requests.storage", "field can not be less than previous value"))
    return errors


PERSISTENT_VOLUME_CLAIM = KindRules(
    create=(Check(lambda obj, _: claim_spec_errors(mapping(obj, "spec"), "spec")),),
    update=(UpdateCheck(_claim_update),),
)

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("storage.k8s.io", "StorageClass"): STORAGE_CLASS,
    ("", "PersistentVolumeClaim"): PERSISTENT_VOLUME_CLAIM,
}
