"""CSINode, CSIStorageCapacity and VolumeAttributesClass (storage.k8s.io), as upstream's
`pkg/apis/storage/validation`."""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import IMMUTABLE, Check, KindRules, UpdateCheck, go_struct, items, lookup, mapping, text
from svc.api.validation.resources import quantity
from svc.api.validation.storage import provisioner_errors
from svc.machinery.field_errors import FieldError, Rendered, duplicate, forbidden, invalid, required, too_long
from svc.machinery.labels import validate_label_selector
from svc.machinery.validation import is_dns1123_subdomain, validate_label_name

CSI_DRIVER_NAME_MAX: Final = 63
CSI_NODE_ID_MAX: Final = 256
MAX_PARAMETERS: Final = 512
MAX_PARAMETERS_SIZE: Final = 256 * 1024


def csi_driver_name_errors(name: str, path: str) -> list[FieldError]:
    """Upstream's `ValidateCSIDriverName`."""
    errors = [required(path)] if not name else []
    if len(name) > CSI_DRIVER_NAME_MAX:
        errors.append(too_long(path, CSI_DRIVER_NAME_MAX))
    return errors + [invalid(path, name, message) for message in is_dns1123_subdomain(name.lower())]


def _csi_node_driver(driver: Any, path: str, names: set[str]) -> list[FieldError]:
    name, node_id = text(driver, "name"), text(driver, "nodeID")
    errors = csi_driver_name_errors(name, f"{path}.name")
    if not node_id:
        errors.append(required(f"{path}.nodeID"))
    if len(node_id) > CSI_NODE_ID_MAX:
        errors.append(invalid(f"{path}.nodeID", node_id, f"must be {CSI_NODE_ID_MAX} characters or less"))
    count = lookup(driver, "allocatable.count")
    if isinstance(count, int) and count < 0:
        errors.append(invalid(f"{path}.allocatable.count", count, "must be greater than or equal to 0"))
    if name in names:
        errors.append(duplicate(f"{path}.name", name))
    names.add(name)
    keys: set[str] = set()
    for key in items(lookup(driver, "topologyKeys")):
        key = str(key)
        if not key:
            errors.append(required(path))
        if key in keys:
            errors.append(duplicate(path, key))
        keys.add(key)
        errors += validate_label_name(key, path)
    return errors


def _csi_node(obj: Any, _: str) -> list[FieldError]:
    names: set[str] = set()
    errors: list[FieldError] = []
    for index, driver in enumerate(items(lookup(obj, "spec.drivers"))):
        errors += _csi_node_driver(driver, f"spec.drivers[{index}]", names)
    return errors


def _go_driver(driver: dict[str, Any]) -> Rendered:
    """A CSINodeDriver as upstream prints its internal struct (Go field names, the count dropped)."""
    members = ("name", "nodeID=NodeID", "topologyKeys", "allocatable")
    return go_struct({**driver, "allocatable": None}, members, zero={"name": "", "nodeID": ""})


def _csi_node_update(new: Any, old: Any, _: str) -> list[FieldError]:
    """An existing driver entry may change only its allocatable count (MutableCSINodeAllocatableCount, GA)."""
    errors: list[FieldError] = []
    for old_driver in items(lookup(old, "spec.drivers")):
        for new_driver in items(lookup(new, "spec.drivers")):
            if type(new_driver) is not dict or type(old_driver) is not dict:
                continue
            if text(new_driver, "name") != text(old_driver, "name"):
                continue
            if _without_allocatable(new_driver) != _without_allocatable(old_driver):
                errors.append(invalid("spec.drivers", _go_driver(new_driver), IMMUTABLE))
    return errors


def _without_allocatable(driver: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in driver.items() if key != "allocatable" and value not in (None, [])}


CSI_NODE = KindRules(create=(Check(_csi_node),), update=(UpdateCheck(_csi_node_update),))


def _storage_capacity(obj: Any, _: str) -> list[FieldError]:
    errors = validate_label_selector(lookup(obj, "nodeTopology"), "nodeTopology")
    class_name = text(obj, "storageClassName")
    errors += [invalid("storageClassName", class_name, message) for message in is_dns1123_subdomain(class_name)]
    for key in ("capacity", "maximumVolumeSize"):
        value = lookup(obj, key)
        parsed = quantity(value) if value is not None else None
        if parsed is not None and parsed.value < 0:
            errors.append(invalid(key, str(parsed), "must be greater than or equal to 0"))
    return errors


def _storage_capacity_update(new: Any, old: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("nodeTopology", "storageClassName"):
        if lookup(new, key) != lookup(old, key):
            errors.append(invalid(key, lookup(new, key), "field is immutable"))
    return errors


CSI_STORAGE_CAPACITY = KindRules(create=(Check(_storage_capacity),), update=(UpdateCheck(_storage_capacity_update),))


def _parameters(obj: Any, _: str) -> list[FieldError]:
    """Upstream's `validateParameters` (a volume attributes class needs at least one)."""
    parameters = mapping(obj, "parameters")
    if len(parameters) > MAX_PARAMETERS:
        return [too_long("parameters", MAX_PARAMETERS)]
    errors = [invalid("parameters", key, "field can not be empty.") for key in parameters if not key]
    if sum(len(key) + len(str(value)) for key, value in parameters.items()) > MAX_PARAMETERS_SIZE:
        errors.append(too_long("parameters", MAX_PARAMETERS_SIZE))
    if not parameters:
        errors.append(required("parameters", "must contain at least one key/value pair"))
    return errors


def _attributes_class_update(new: Any, old: Any, _: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if lookup(new, "driverName") != lookup(old, "driverName"):
        errors.append(forbidden("driverName", "updates to driverName are forbidden."))
    if (lookup(new, "parameters") or {}) != (lookup(old, "parameters") or {}):
        errors.append(forbidden("parameters", "updates to parameters are forbidden."))
    return errors


VOLUME_ATTRIBUTES_CLASS = KindRules(
    create=(Check(lambda obj, _: provisioner_errors(lookup(obj, "driverName"), "driverName")), Check(_parameters)),
    update=(UpdateCheck(_attributes_class_update),),
)

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("storage.k8s.io", "CSINode"): CSI_NODE,
    ("storage.k8s.io", "CSIStorageCapacity"): CSI_STORAGE_CAPACITY,
    ("storage.k8s.io", "VolumeAttributesClass"): VOLUME_ATTRIBUTES_CLASS,
}
