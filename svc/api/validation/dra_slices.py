"""ResourceSlice (resource.k8s.io), as upstream's `validateResourceSliceSpec`.

A slice publishes one driver's devices of one pool, for exactly one of: a node (`nodeName`), a
node selector with one term, all nodes, or a choice made per device (`perDeviceNodeSelection`).
It holds either devices or shared counters. Limits keep a slice small (128 devices, 64 when
devices use taints, counters or list attributes; 32 attributes and capacities per device). The
pool name, driver and node name never change; taints and capacities unchanged since the stored
slice are not checked again.
"""

from __future__ import annotations

import re
from typing import Any, Final

from svc.api.validation.dra_names import (
    by_name,
    dns_label_errors,
    driver_name_errors,
    listed,
    pool_name_errors,
    qualified_name_errors,
    taint_errors,
)
from svc.api.validation.dra_node_allocatable import node_allocatable_mapping_errors
from svc.api.validation.engine import IMMUTABLE, Check, KindRules, UpdateCheck, items, lookup, mapping, text
from svc.api.validation.scheduling import node_selector_errors
from svc.machinery.field_errors import FieldError, duplicate, forbidden, invalid, required, too_long, too_many
from svc.machinery.validation import name_is_dns_subdomain, validate_label_name

MAX_DEVICES: Final = 128
MAX_DEVICES_WITH_ADVANCED_FEATURES: Final = 64
MAX_COUNTER_SETS: Final = 8
MAX_COUNTERS_PER_SET: Final = 32
MAX_COUNTER_CONSUMPTIONS_PER_DEVICE: Final = 2
MAX_ATTRIBUTES_AND_CAPACITIES: Final = 32
MAX_ATTRIBUTE_VALUES: Final = 48
ATTRIBUTE_MAX_VALUE_LENGTH: Final = 64
DEVICE_TAINTS_MAX: Final = 16
BINDING_CONDITIONS_MAX: Final = 4
KEY_TRUNCATION: Final = 63 + 1 + 32
_SCALARS: Final = ("bool", "int", "string", "version")
_LISTS: Final = ("bools", "ints", "strings", "versions")
_SEMVER: Final = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
    r"(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$"
)
_NOT_SEMVER: Final = "must be a string compatible with semver.org spec 2.0.0"
_NODE_FIELDS_NEED_PER_DEVICE: Final = (
    "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the "
    "ResourceSlice spec"
)
_NODE_CHOICE: Final = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
_DEVICE_NODE_CHOICE: Final = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set "
    "to true in the ResourceSlice spec"
)


def _key_path(path: str, key: str) -> str:
    """A map entry's path; long keys are shortened in the middle, as upstream's `truncateIfTooLong`."""
    if len(key) > KEY_TRUNCATION:
        remaining = KEY_TRUNCATION - 3
        key = key[: (remaining + 1) // 2] + "..." + key[len(key) - remaining // 2 :]
    return f"{path}[{key}]"


def _node_name(name: str, path: str) -> list[FieldError]:
    return [invalid(path, name, message) for message in name_is_dns_subdomain(name, False)]


def _version(value: Any, path: str) -> list[FieldError]:
    value = value if isinstance(value, str) else ""
    errors = [] if _SEMVER.match(value) else [invalid(path, value, _NOT_SEMVER)]
    if len(value) > ATTRIBUTE_MAX_VALUE_LENGTH:
        errors.append(too_long(path, ATTRIBUTE_MAX_VALUE_LENGTH))
    return errors


def _string(value: Any, path: str) -> list[FieldError]:
    return [too_long(path, ATTRIBUTE_MAX_VALUE_LENGTH)] if len(str(value)) > ATTRIBUTE_MAX_VALUE_LENGTH else []


_ITEM_CHECKS: Final = {"strings": _string, "versions": _version}


def _attribute(attribute: Any, path: str) -> list[FieldError]:
    """Upstream's `validateDeviceAttribute`: exactly one value, strings short, versions semver."""
    attribute = attribute if type(attribute) is dict else {}
    errors: list[FieldError] = []
    if "string" in attribute:
        errors += _string(attribute["string"], f"{path}.string")
    if "version" in attribute:
        errors += _version(attribute["version"], f"{path}.version")
    for key in _LISTS:
        if key not in attribute:
            continue
        values = items(attribute[key])
        if not values:
            errors.append(invalid(f"{path}.{key}", values, "must not be empty if specified"))
        check = _ITEM_CHECKS.get(key)
        if check is not None:
            for index, value in enumerate(values):
                errors += check(value, f"{path}.{key}[{index}]")
    count = sum(key in attribute for key in (*_SCALARS, *_LISTS))
    if count != 1:
        errors.append(invalid(path, "" if count == 0 else attribute, "exactly one value must be specified"))
    return errors


def _attribute_values(attributes: dict[str, Any]) -> int:
    total = 0
    for attribute in attributes.values():
        listed_values = sum(len(items(lookup(attribute, key))) for key in _LISTS)
        total += listed_values or 1
    return total


def _map_errors(entries: dict[str, Any], path: str, check: Any) -> list[FieldError]:
    """Upstream's `validateMap`: each key on the map's path, each value on the entry's."""
    errors: list[FieldError] = []
    for key, value in entries.items():
        errors += qualified_name_errors(key, path)
        errors += check(value, _key_path(path, key))
    return errors


def _capacity(allow_multiple: bool) -> Any:
    def check(capacity: Any, path: str) -> list[FieldError]:
        if lookup(capacity, "requestPolicy") is not None and not allow_multiple:
            return [forbidden(f"{path}.requestPolicy", "allowMultipleAllocations must be true")]
        return []

    return check


def _counters(counters: Any, path: str) -> list[FieldError]:
    if not isinstance(counters, dict) or not counters:
        return [required(path)]
    if len(counters) > MAX_COUNTERS_PER_SET:
        return [too_many(path, len(counters), MAX_COUNTERS_PER_SET)]
    errors: list[FieldError] = []
    for key in counters:
        errors += dns_label_errors(key, path)
    return errors


def _counter_consumption(consumption: Any, path: str) -> list[FieldError]:
    counter_set = text(consumption, "counterSet")
    errors = dns_label_errors(counter_set, f"{path}.counterSet") if counter_set else [required(f"{path}.counterSet")]
    return errors + _counters(lookup(consumption, "counters"), f"{path}.counters")


def _counter_set(counter_set: Any, path: str) -> list[FieldError]:
    name = text(counter_set, "name")
    errors = dns_label_errors(name, f"{path}.name") if name else [required(f"{path}.name")]
    return errors + _counters(lookup(counter_set, "counters"), f"{path}.counters")


def _binding_conditions(device: Any, path: str) -> list[FieldError]:
    """Upstream's `validateDeviceBindingParameters`: label-name conditions, unique, not overlapping, paired."""
    conditions = [c for c in items(lookup(device, "bindingConditions")) if isinstance(c, str)]
    failures = [c for c in items(lookup(device, "bindingFailureConditions")) if isinstance(c, str)]
    errors = listed(conditions, BINDING_CONDITIONS_MAX, validate_label_name, f"{path}.bindingConditions")
    errors += listed(failures, BINDING_CONDITIONS_MAX, validate_label_name, f"{path}.bindingFailureConditions")
    for index, condition in enumerate(conditions):
        if condition in conditions[:index]:
            errors.append(duplicate(f"{path}.bindingConditions[{index}]", condition))
    for index, condition in enumerate(failures):
        where = f"{path}.bindingFailureConditions[{index}]"
        if condition in failures[:index]:
            errors.append(duplicate(where, condition))
        if condition in conditions:
            errors.append(invalid(where, condition, "bindingFailureConditions must not overlap with bindingConditions"))
    if failures and not conditions:
        detail = "bindingConditions are required to use bindingFailureConditions"
        errors.append(invalid(f"{path}.bindingConditions", conditions, detail))
    if conditions and not failures:
        detail = "bindingFailureConditions are required to use bindingConditions"
        errors.append(invalid(f"{path}.bindingFailureConditions", failures, detail))
    return errors


def _device_node(device: Any, path: str, per_device: bool) -> list[FieldError]:
    node_name, node_selector, all_nodes = (device.get(key) for key in ("nodeName", "nodeSelector", "allNodes"))
    if not per_device:
        if node_name is None and node_selector is None and all_nodes is None:
            return []
        return [invalid(path, None, _NODE_FIELDS_NEED_PER_DEVICE)]
    errors: list[FieldError] = []
    chosen: list[str] = []
    if node_name is not None:
        if node_name:
            chosen.append("`nodeName`")
            errors += _node_name(str(node_name), f"{path}.nodeName")
        else:
            errors.append(invalid(f"{path}.nodeName", "", "must not be empty"))
    if node_selector is not None:
        chosen.append("`nodeSelector`")
        errors += node_selector_errors(node_selector, f"{path}.nodeSelector")
    if all_nodes is not None:
        if all_nodes is True:
            chosen.append("`allNodes`")
        else:
            errors.append(invalid(f"{path}.allNodes", all_nodes, "must be either unset or set to true"))
    if not chosen:
        errors.append(required(path, _DEVICE_NODE_CHOICE))
    elif len(chosen) > 1:
        errors.append(invalid(path, "{" + ", ".join(chosen) + "}", _DEVICE_NODE_CHOICE))
    return errors


def _device(device: Any, path: str, old_devices: dict[str, Any], per_device: bool) -> list[FieldError]:
    """Upstream's `validateDevice`."""
    device = device if type(device) is dict else {}
    old = old_devices.get(text(device, "name"))
    attributes, capacity = mapping(device, "attributes"), mapping(device, "capacity")
    errors = dns_label_errors(text(device, "name"), f"{path}.name")
    if len(attributes) + len(capacity) > MAX_ATTRIBUTES_AND_CAPACITIES:
        detail = f"the total number of attributes and capacities must not exceed {MAX_ATTRIBUTES_AND_CAPACITIES}"
        errors.append(invalid(path, len(attributes) + len(capacity), detail))
    values = _attribute_values(attributes)
    if values > MAX_ATTRIBUTE_VALUES:
        detail = f"the total number of attribute values must not exceed {MAX_ATTRIBUTE_VALUES}"
        errors.append(invalid(path, values, detail))
    errors += _map_errors(attributes, f"{path}.attributes", _attribute)
    if old is None or old.get("capacity") != device.get("capacity"):
        errors += _map_errors(capacity, f"{path}.capacity", _capacity(device.get("allowMultipleAllocations") is True))
    if old is None or old.get("taints") != device.get("taints"):
        errors += listed(device.get("taints"), DEVICE_TAINTS_MAX, taint_errors, f"{path}.taints")
    errors += listed(
        device.get("consumesCounters"),
        MAX_COUNTER_CONSUMPTIONS_PER_DEVICE,
        _counter_consumption,
        f"{path}.consumesCounters",
        key=lambda consumption: text(consumption, "counterSet"),
    )
    errors += _device_node(device, path, per_device)
    return errors + _binding_conditions(device, path) + node_allocatable_mapping_errors(device, path)


def _advanced(devices: list[Any]) -> bool:
    """Taints, counter consumption or list attributes lower the device limit."""
    for device in devices:
        if items(lookup(device, "taints")) or items(lookup(device, "consumesCounters")):
            return True
        if any(type(a) is dict and any(k in a for k in _LISTS) for a in mapping(device, "attributes").values()):
            return True
    return False


def _node_choice(spec: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    chosen: list[str] = []
    node_name = spec.get("nodeName")
    if node_name is not None:
        if node_name:
            chosen.append("`nodeName`")
            errors += _node_name(str(node_name), "spec.nodeName")
        else:
            errors.append(invalid("spec.nodeName", "", "must be either unset or set to a non-empty string"))
    selector = spec.get("nodeSelector")
    if selector is not None:
        chosen.append("`nodeSelector`")
        errors += node_selector_errors(selector, "spec.nodeSelector")
        terms = items(lookup(selector, "nodeSelectorTerms"))
        if len(terms) != 1:
            detail = "must have exactly one node selector term"
            errors.append(invalid("spec.nodeSelector.nodeSelectorTerms", terms, detail))
    for key in ("allNodes", "perDeviceNodeSelection"):
        value = spec.get(key)
        if value is True:
            chosen.append(f"`{key}`")
        elif value is not None:
            errors.append(invalid(f"spec.{key}", value, "must be either unset or set to true"))
    if not chosen:
        errors.append(required("spec", _NODE_CHOICE))
    elif len(chosen) > 1:
        errors.append(invalid("spec", "{" + ", ".join(chosen) + "}", f"{_NODE_CHOICE}, but multiple fields are set"))
    return errors


def _pool(pool: Any) -> list[FieldError]:
    errors = pool_name_errors(text(pool, "name"), "spec.pool.name")
    count, generation = lookup(pool, "resourceSliceCount"), lookup(pool, "generation")
    count = count if type(count) is int else 0
    generation = generation if type(generation) is int else 0
    if count <= 0:
        errors.append(invalid("spec.pool.resourceSliceCount", count, "must be greater than zero"))
    if generation < 0:
        errors.append(invalid("spec.pool.generation", generation, "must be greater than or equal to zero"))
    return errors


def _immutable(spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    for path in ("pool.name", "driver", "nodeName"):
        value = lookup(spec, path)
        if value != lookup(old_spec, path):
            errors.append(invalid(f"spec.{path}", value, IMMUTABLE))
    return errors


def slice_spec_errors(obj: Any, old: Any | None) -> list[FieldError]:
    spec, old_spec = mapping(obj, "spec"), mapping(old, "spec") if old is not None else None
    errors = driver_name_errors(text(spec, "driver"), "spec.driver") + _pool(spec.get("pool"))
    if old_spec is not None:
        errors += _immutable(spec, old_spec)
    errors += _node_choice(spec)
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        errors.append(invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed"))
    devices = items(spec.get("devices"))
    old_devices = {text(d, "name"): d for d in items((old_spec or {}).get("devices")) if type(d) is dict}
    per_device = spec.get("perDeviceNodeSelection") is True
    errors += listed(
        devices,
        MAX_DEVICES_WITH_ADVANCED_FEATURES if _advanced(devices) else MAX_DEVICES,
        lambda device, where: _device(device, where, old_devices, per_device),
        "spec.devices",
        key=by_name,
    )
    return errors + listed(
        spec.get("sharedCounters"), MAX_COUNTER_SETS, _counter_set, "spec.sharedCounters", key=by_name
    )


RESOURCE_SLICE = KindRules(
    create=(Check(lambda obj, _: slice_spec_errors(obj, None)),),
    update=(UpdateCheck(lambda new, old, _: slice_spec_errors(new, old)),),
    revalidate_on_update=False,
)
