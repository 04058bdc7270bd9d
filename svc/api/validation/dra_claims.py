"""ResourceClaim, ResourceClaimTemplate and DeviceClass (resource.k8s.io), as upstream's
`pkg/apis/resource/validation`.

A claim's spec asks for devices: each request is either `exactly` one kind of device (a class,
CEL selectors, an allocation mode and count, tolerations) or a prioritized list of such
alternatives (`firstAvailable`); constraints and configuration name the requests they apply to.
The spec of a claim and of a template is immutable, so an update only compares it (upstream skips
re-validating what the user cannot change). A class re-compiles its selectors only when they changed.
The claim's status rules (`claim_status_errors`) are those of a write through its status subresource.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from svc.api.validation.addresses import interface_address_errors
from svc.api.validation.dra_names import (
    by_name,
    by_value,
    dns_label_errors,
    dns_subdomain_errors,
    driver_name_errors,
    fully_qualified_name_errors,
    listed,
    pool_name_errors,
    toleration_errors,
    uid_errors,
)
from svc.api.validation.dra_selectors import selector_expression_errors
from svc.api.validation.engine import IMMUTABLE, Check, KindRules, UpdateCheck, items, lookup, mapping, text
from svc.api.validation.resources import is_native
from svc.api.validation.scheduling import node_selector_errors
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported, required, too_long, too_many
from svc.machinery.validation import is_qualified_name, validate_annotations, validate_labels

DEVICE_REQUESTS_MAX: Final = 32
DEVICE_CONSTRAINTS_MAX: Final = 32
DEVICE_CONFIG_MAX: Final = 32
DEVICE_SELECTORS_MAX: Final = 32
FIRST_AVAILABLE_MAX: Final = 8
OPAQUE_PARAMETERS_MAX_LENGTH: Final = 10 * 1024
RESERVED_FOR_MAX: Final = 256
ALLOCATION_RESULTS_MAX: Final = 32
DEVICE_STATUS_MAX_CONDITIONS: Final = 8
NETWORK_DATA_MAX_IPS: Final = 16
ALLOCATION_MODES: Final = ("All", "ExactCount")
CONFIG_SOURCES: Final = ("FromClaim", "FromClass")
REQUEST_REFERENCE: Final = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)

RequestNames = dict[str, set[str] | None]


def _request_names(devices: Any) -> RequestNames:
    """Each request's name, with the names of its subrequests (None for an `exactly` request)."""
    names: RequestNames = {}
    for request in items(lookup(devices, "requests")):
        alternatives = items(lookup(request, "firstAvailable"))
        names[text(request, "name")] = {text(sub, "name") for sub in alternatives} if alternatives else None
    return names


def _names_request(names: RequestNames, reference: str) -> bool:
    request, _, sub = reference.partition("/")
    if request not in names:
        return False
    subrequests = names[request]
    return not sub or (subrequests is not None and sub in subrequests)


def _request_reference_errors(reference: Any, path: str, names: RequestNames) -> list[FieldError]:
    """Upstream's `validateRequestNameRef`: `request` or `request/subrequest`, naming one of the claim's."""
    reference = reference if isinstance(reference, str) else ""
    segments = reference.split("/")
    if len(segments) > 2:
        return [invalid(path, reference, REQUEST_REFERENCE)]
    errors: list[FieldError] = []
    for segment in segments:
        errors += dns_label_errors(segment, path)
    if not _names_request(names, reference):
        errors.append(invalid(path, reference, REQUEST_REFERENCE))
    return errors


def _references(node: Any, path: str, names: RequestNames) -> list[FieldError]:
    return listed(
        lookup(node, "requests"),
        DEVICE_REQUESTS_MAX,
        lambda reference, where: _request_reference_errors(reference, where, names),
        f"{path}.requests",
        key=by_value,
    )


def _selector(selector: Any, path: str) -> list[FieldError]:
    expression = lookup(selector, "cel.expression")
    if type(lookup(selector, "cel")) is not dict:
        return [required(f"{path}.cel")]
    return selector_expression_errors(expression if isinstance(expression, str) else "", f"{path}.cel.expression")


def selectors_errors(selectors: Any, path: str) -> list[FieldError]:
    return listed(selectors, DEVICE_SELECTORS_MAX, _selector, path)


def _device_class_name(name: str, path: str) -> list[FieldError]:
    return dns_subdomain_errors(name, path) if name else [required(path)]


def _allocation_mode(request: Any, path: str) -> list[FieldError]:
    mode, count = text(request, "allocationMode"), lookup(request, "count")
    count = count if type(count) is int else 0
    if mode == "All":
        if count != 0:
            return [invalid(f"{path}.count", count, "must not be specified when allocationMode is 'All'")]
        return []
    if mode == "ExactCount":
        return [invalid(f"{path}.count", count, "must be greater than zero")] if count <= 0 else []
    return [not_supported(f"{path}.allocationMode", mode, ALLOCATION_MODES)]


def _device_choice(request: Any, path: str) -> list[FieldError]:
    """What an `exactly` request and a `firstAvailable` alternative both say about the devices."""
    errors = _device_class_name(text(request, "deviceClassName"), f"{path}.deviceClassName")
    errors += selectors_errors(lookup(request, "selectors"), f"{path}.selectors")
    errors += _allocation_mode(request, path)
    for index, toleration in enumerate(items(lookup(request, "tolerations"))):
        errors += toleration_errors(toleration, f"{path}.tolerations[{index}]")
    return errors


def _subrequest(subrequest: Any, path: str) -> list[FieldError]:
    return dns_label_errors(text(subrequest, "name"), f"{path}.name") + _device_choice(subrequest, path)


def _request(request: Any, path: str) -> list[FieldError]:
    errors = dns_label_errors(text(request, "name"), f"{path}.name")
    alternatives, exactly = items(lookup(request, "firstAvailable")), lookup(request, "exactly")
    if alternatives and exactly is not None:
        detail = "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"
        return [*errors, invalid(path, None, detail)]
    if alternatives:
        path = f"{path}.firstAvailable"
        return errors + listed(alternatives, FIRST_AVAILABLE_MAX, _subrequest, path, key=by_name)
    if exactly is not None:
        return errors + _device_choice(exactly, f"{path}.exactly")
    return [*errors, required(path, "exactly one of `exactly` or `firstAvailable` is required")]


def _constraint(constraint: Any, path: str, names: RequestNames) -> list[FieldError]:
    errors = _references(constraint, path, names)
    match, distinct = lookup(constraint, "matchAttribute"), lookup(constraint, "distinctAttribute")
    if isinstance(match, str):
        errors += fully_qualified_name_errors(match, f"{path}.matchAttribute")
    elif isinstance(distinct, str):
        errors += fully_qualified_name_errors(distinct, f"{path}.distinctAttribute")
    else:
        detail = 'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set'
        errors.append(required(path, detail))
    return errors


def _parameters(parameters: Any, path: str, stored: bool) -> list[FieldError]:
    """Upstream's `validateRawExtension`: a JSON object of at most 10 KiB (older stored ones may be larger)."""
    if parameters is None:
        return [required(path)]
    if not stored and len(orjson.dumps(parameters)) > OPAQUE_PARAMETERS_MAX_LENGTH:
        return [too_long(path, OPAQUE_PARAMETERS_MAX_LENGTH)]
    if type(parameters) is not dict:
        return [invalid(path, "<value omitted>", "must be a valid JSON object")]
    return []


def device_configuration_errors(config: Any, path: str, stored: bool = False) -> list[FieldError]:
    opaque = lookup(config, "opaque")
    if type(opaque) is not dict:
        return [required(f"{path}.opaque")]
    errors = driver_name_errors(text(opaque, "driver"), f"{path}.opaque.driver")
    return errors + _parameters(opaque.get("parameters"), f"{path}.opaque.parameters", stored)


def device_claim_errors(devices: Any, path: str) -> list[FieldError]:
    """Upstream's `validateDeviceClaim`: requests, then constraints and configuration naming them."""
    names = _request_names(devices)
    errors = listed(lookup(devices, "requests"), DEVICE_REQUESTS_MAX, _request, f"{path}.requests", key=by_name)
    errors += listed(
        lookup(devices, "constraints"),
        DEVICE_CONSTRAINTS_MAX,
        lambda constraint, where: _constraint(constraint, where, names),
        f"{path}.constraints",
    )
    return errors + listed(
        lookup(devices, "config"),
        DEVICE_CONFIG_MAX,
        lambda config, where: _references(config, where, names) + device_configuration_errors(config, where),
        f"{path}.config",
    )


def _claim(obj: Any, _: str) -> list[FieldError]:
    return device_claim_errors(lookup(obj, "spec.devices"), "spec.devices")


def _template(obj: Any, _: str) -> list[FieldError]:
    """The template's own labels and annotations (upstream's `ValidateTemplateObjectMeta`), then its claim."""
    errors = validate_annotations(mapping(obj, "spec.metadata.annotations"), "spec.metadata.annotations")
    errors += validate_labels(mapping(obj, "spec.metadata.labels"), "spec.metadata.labels")
    return errors + device_claim_errors(lookup(obj, "spec.spec.devices"), "spec.spec.devices")


def _spec_immutable(new: Any, old: Any, _: str) -> list[FieldError]:
    spec = lookup(new, "spec")
    return [invalid("spec", spec, IMMUTABLE)] if spec != lookup(old, "spec") else []


def _consumer(consumer: Any, path: str) -> list[FieldError]:
    return [required(f"{path}.{key}") for key in ("resource", "name", "uid") if not text(consumer, key)]


def _allocation_result(result: Any, path: str, names: RequestNames) -> list[FieldError]:
    errors = _request_reference_errors(lookup(result, "request"), f"{path}.request", names)
    errors += driver_name_errors(text(result, "driver"), f"{path}.driver")
    errors += pool_name_errors(text(result, "pool"), f"{path}.pool")
    errors += dns_label_errors(text(result, "device"), f"{path}.device")
    for index, toleration in enumerate(items(lookup(result, "tolerations"))):
        errors += toleration_errors(toleration, f"{path}.tolerations[{index}]")
    if isinstance(lookup(result, "shareID"), str):
        errors += uid_errors(result["shareID"], f"{path}.shareID")
    return errors


def _allocation_config(config: Any, path: str, names: RequestNames) -> list[FieldError]:
    source = text(config, "source")
    errors = [required(f"{path}.source")] if not source else []
    if source and source not in CONFIG_SOURCES:
        errors.append(not_supported(f"{path}.source", source, CONFIG_SOURCES))
    return errors + _references(config, path, names) + device_configuration_errors(config, path)


def _new_allocation(allocation: Any, path: str, names: RequestNames) -> list[FieldError]:
    """Upstream's `validateAllocationResult`, for an allocation the status write adds."""
    errors = listed(
        lookup(allocation, "devices.results"),
        ALLOCATION_RESULTS_MAX,
        lambda result, where: _allocation_result(result, where, names),
        f"{path}.devices.results",
    )
    errors += listed(
        lookup(allocation, "devices.config"),
        2 * DEVICE_CONFIG_MAX,
        lambda config, where: _allocation_config(config, where, names),
        f"{path}.devices.config",
    )
    if type(lookup(allocation, "nodeSelector")) is dict:
        errors += node_selector_errors(lookup(allocation, "nodeSelector"), f"{path}.nodeSelector")
    return errors


def _adds(reserved: list[Any], old: Any) -> bool:
    return any(consumer not in items(old) for consumer in reserved)


def _device_id(entry: Any) -> str:
    """Upstream's SharedDeviceID as it prints: driver/pool/device, then the share ID when there is one."""
    share = lookup(entry, "shareID")
    parts = [text(entry, "driver"), text(entry, "pool"), text(entry, "device")]
    return "/".join([*parts, share] if isinstance(share, str) and share else parts)


def _device_status(device: Any, path: str, allocated: set[str]) -> list[FieldError]:
    """Upstream's `validateDeviceStatus`: an allocated device, few conditions, an object of data."""
    errors = driver_name_errors(text(device, "driver"), f"{path}.driver")
    errors += pool_name_errors(text(device, "pool"), f"{path}.pool")
    errors += dns_label_errors(text(device, "device"), f"{path}.device")
    if isinstance(lookup(device, "shareID"), str):
        errors += uid_errors(device["shareID"], f"{path}.shareID")
    if _device_id(device) not in allocated:
        errors.append(invalid(path, _device_id(device), "must be an allocated device in the claim"))
    conditions = items(lookup(device, "conditions"))
    if len(conditions) > DEVICE_STATUS_MAX_CONDITIONS:
        errors.append(too_many(f"{path}.conditions", len(conditions), DEVICE_STATUS_MAX_CONDITIONS))
    data = lookup(device, "data")
    if data is not None:
        errors += _parameters(data, f"{path}.data", False)
    for key, limit in (("interfaceName", 256), ("hardwareAddress", 128)):
        value = lookup(device, f"networkData.{key}")
        if isinstance(value, str) and len(value) > limit:
            errors.append(too_long(f"{path}.networkData.{key}", limit))
    errors += listed(
        lookup(device, "networkData.ips"), NETWORK_DATA_MAX_IPS, _interface_address, f"{path}.networkData.ips", key=str
    )
    return errors


def _interface_address(address: Any, path: str) -> list[FieldError]:
    return [invalid(path, address, message) for message in interface_address_errors(str(address))]


def claim_status_errors(new: Any, old: Any) -> list[FieldError]:
    """Upstream's `validateResourceClaimStatusUpdate`: consumers, then the allocation's invariants."""
    status, old_status = mapping(new, "status"), mapping(old, "status")
    reserved = items(status.get("reservedFor"))
    errors = listed(reserved, RESERVED_FOR_MAX, _consumer, "status.reservedFor", key=lambda c: text(c, "uid"))
    allocation, old_allocation = status.get("allocation"), old_status.get("allocation")
    allocated = {_device_id(result) for result in items(lookup(allocation, "devices.results"))}
    errors += listed(
        status.get("devices"),
        -1,
        lambda device, where: _device_status(device, where, allocated),
        "status.devices",
        key=_device_id,
    )
    if reserved and allocation is None:
        errors.append(forbidden("status.reservedFor", "may not be specified when `allocated` is not set"))
    elif reserved and lookup(new, "metadata.deletionTimestamp") and _adds(reserved, old_status.get("reservedFor")):
        detail = "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"
        errors.append(forbidden("status.reservedFor", detail))
    if allocation is not None and old_allocation is not None:
        if allocation != old_allocation:
            errors.append(invalid("status.allocation", allocation, IMMUTABLE))
    elif allocation is not None:
        errors += _new_allocation(allocation, "status.allocation", _request_names(lookup(new, "spec.devices")))
    return errors


RESOURCE_CLAIM = KindRules(
    create=(Check(_claim),),
    update=(UpdateCheck(_spec_immutable),),
    revalidate_on_update=False,
)
RESOURCE_CLAIM_TEMPLATE = KindRules(
    create=(Check(_template),), update=(UpdateCheck(_spec_immutable),), revalidate_on_update=False
)


def _extended_resource_name(name: Any, path: str) -> list[FieldError]:
    """A class's `extendedResourceName`: not a native resource, not `requests.`-prefixed, and qualified."""
    if not isinstance(name, str):
        return []
    valid = not is_native(name) and not name.startswith("requests.") and not is_qualified_name(f"requests.{name}")
    return [] if valid else [invalid(path, name, "must be a valid extended resource name")]


def _class_spec(new: Any, old: Any | None) -> list[FieldError]:
    """Selectors and configuration compile again only when they changed (upstream treats equal ones as stored)."""
    spec, old_spec = mapping(new, "spec"), mapping(old, "spec") if old is not None else None
    selectors_stored = old_spec is not None and spec.get("selectors") == old_spec.get("selectors")
    errors = (
        listed(spec.get("selectors"), DEVICE_SELECTORS_MAX, lambda *_: [], "spec.selectors")
        if selectors_stored
        else selectors_errors(spec.get("selectors"), "spec.selectors")
    )
    config_stored = old_spec is not None and spec.get("config") == old_spec.get("config")
    errors += listed(
        spec.get("config"),
        DEVICE_CONFIG_MAX,
        lambda config, where: device_configuration_errors(config, where, config_stored),
        "spec.config",
    )
    return errors + _extended_resource_name(spec.get("extendedResourceName"), "spec.extendedResourceName")


DEVICE_CLASS = KindRules(
    create=(Check(lambda obj, _: _class_spec(obj, None)),),
    update=(UpdateCheck(lambda new, old, _: _class_spec(new, old)),),
    revalidate_on_update=False,
)
