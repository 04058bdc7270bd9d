"""EndpointSlice (`pkg/apis/discovery/validation`) and Event (`pkg/apis/core/validation/events.go`).

Upstream stores both Event versions as one internal type and reports errors with the internal field
names (`involvedObject`, `message`, `source`); the events.k8s.io/v1 rules here read that version's
members (`regarding`, `note`, `deprecatedSource`) but keep upstream's paths. Events written through
core/v1 get only the legacy checks; events.k8s.io/v1 adds the strict ones, as upstream's
`ValidateEventCreate` does by request version.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from svc.api.validation.addresses import special_ip_errors
from svc.api.validation.engine import Check, Immutable, KindRules, UpdateCheck, items, lookup, mapping, text
from svc.machinery.field_errors import FieldError, duplicate, invalid, not_supported, required, too_many
from svc.machinery.validation import is_dns1123_label, is_dns1123_subdomain, is_qualified_name, validate_labels

# --- discovery.k8s.io EndpointSlice ---------------------------------------------------------------

ADDRESS_TYPES: Final = ("FQDN", "IPv4", "IPv6")
_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
MAX_ENDPOINTS: Final = 1000
MAX_ADDRESSES: Final = 100
MAX_PORTS: Final = 100
_MAX_TOPOLOGY: Final = 16


def _ip_of_version(value: str, version: int) -> list[str]:
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        address = None
    if address is None or address.version != version:
        return [f"must be a valid IPv{version} address"]
    return special_ip_errors(value)


def _fqdn_errors(value: str) -> list[str]:
    """Upstream's `IsFullyQualifiedDomainName` (a trailing dot is allowed, at least two labels)."""
    name = value.removesuffix(".")
    if "." not in name:
        return ["should be a domain with at least two segments separated by dots"]
    return is_dns1123_subdomain(name)


def _address_errors(address_type: Any, address: Any, path: str) -> list[FieldError]:
    value = str(address)
    if address_type == "IPv4":
        messages = _ip_of_version(value, 4)
    elif address_type == "IPv6":
        messages = _ip_of_version(value, 6)
    elif address_type == "FQDN":
        if not value:
            return [required(path)]
        messages = _fqdn_errors(value)
    else:
        return []
    return [invalid(path, value, message) for message in messages]


def _endpoints(obj: Any, _: str) -> list[FieldError]:
    endpoints = items(lookup(obj, "endpoints"))
    if len(endpoints) > MAX_ENDPOINTS:
        return [too_many("endpoints", len(endpoints), MAX_ENDPOINTS)]
    address_type = lookup(obj, "addressType")
    errors: list[FieldError] = []
    for index, endpoint in enumerate(endpoints):
        path = f"endpoints[{index}]"
        addresses = items(lookup(endpoint, "addresses"))
        if not addresses:
            errors.append(required(f"{path}.addresses", "must contain at least 1 address"))
        elif len(addresses) > MAX_ADDRESSES:
            errors.append(too_many(f"{path}.addresses", len(addresses), MAX_ADDRESSES))
        for address_index, address in enumerate(addresses):
            errors += _address_errors(address_type, address, f"{path}.addresses[{address_index}]")
        topology = mapping(endpoint, "deprecatedTopology")
        if len(topology) > _MAX_TOPOLOGY:
            errors.append(too_many(f"{path}.topology", len(topology), _MAX_TOPOLOGY))
        errors += validate_labels({str(k): str(v) for k, v in topology.items()}, f"{path}.topology")
        hostname = lookup(endpoint, "hostname")
        if isinstance(hostname, str):
            errors += [invalid(f"{path}.hostname", hostname, m) for m in is_dns1123_label(hostname)]
    return errors


def _ports(obj: Any, _: str) -> list[FieldError]:
    ports = items(lookup(obj, "ports"))
    if len(ports) > MAX_PORTS:
        return [too_many("ports", len(ports), MAX_PORTS)]
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, port in enumerate(ports):
        path = f"ports[{index}]"
        name = text(port, "name")
        if name:
            errors += [invalid(f"{path}.name", name, message) for message in is_dns1123_label(name)]
        if name in names:
            errors.append(duplicate(f"{path}.name", name))
        names.add(name)
        protocol = lookup(port, "protocol")
        if protocol is None:
            errors.append(required(f"{path}.protocol"))
        elif protocol not in _PROTOCOLS:
            errors.append(not_supported(f"{path}.protocol", protocol, _PROTOCOLS))
        app_protocol = lookup(port, "appProtocol")
        if isinstance(app_protocol, str):
            errors += [invalid(f"{path}.appProtocol", app_protocol, m) for m in is_qualified_name(app_protocol)]
    return errors


def _address_type(obj: Any, _: str) -> list[FieldError]:
    value = lookup(obj, "addressType")
    if not value:
        return [required("addressType")]
    return [] if value in ADDRESS_TYPES else [not_supported("addressType", value, ADDRESS_TYPES)]


ENDPOINT_SLICE = KindRules(
    create=(Check(_address_type), Check(_endpoints), Check(_ports)),
    update=(Immutable("addressType"),),
)

# --- Event (core/v1 and events.k8s.io/v1) ---------------------------------------------------------

_LIMITS: Final = {"reportingInstance": 128, "action": 128, "reason": 128}
_NOTE_LIMIT: Final = 1024
_DEFAULT_NAMESPACES: Final = ("default", "kube-system")


def _legacy(obj: Any, *, regarding: str, note: str, controller_member: str) -> list[FieldError]:
    """Upstream's `legacyValidateEvent`: checks every Event passes, whichever version wrote it."""
    namespace = text(obj, "metadata.namespace")
    involved = text(obj, f"{regarding}.namespace")
    errors: list[FieldError] = []
    if not lookup(obj, "eventTime"):
        mismatch = namespace not in ("", "default") if not involved else namespace != involved
    else:
        mismatch = not involved and namespace not in _DEFAULT_NAMESPACES
    if mismatch:
        errors.append(invalid("involvedObject.namespace", involved, "does not match event.namespace"))
    if not lookup(obj, "eventTime"):
        return errors
    controller = text(obj, controller_member)
    if not controller:
        errors.append(required("reportingController"))
    errors += [invalid("reportingController", controller, message) for message in is_qualified_name(controller)]
    for key, limit in _LIMITS.items():
        value = text(obj, key)
        if not value:
            errors.append(required(key))
        if len(value) > limit:
            errors.append(invalid(key, "", f"can have at most {limit} characters"))
    if len(text(obj, note)) > _NOTE_LIMIT:
        errors.append(invalid("message", "", f"can have at most {_NOTE_LIMIT} characters"))
    return errors


def _core_event(obj: Any, _: str) -> list[FieldError]:
    return _legacy(obj, regarding="involvedObject", note="message", controller_member="reportingComponent")


def _strict_event(obj: Any, _: str) -> list[FieldError]:
    """events.k8s.io/v1 adds upstream's strict checks: eventTime set, deprecated members unset."""
    errors = _legacy(obj, regarding="regarding", note="note", controller_member="reportingController")
    series = lookup(obj, "series")
    if isinstance(series, dict):
        if not isinstance(series.get("count"), int) or series["count"] < 2:
            errors.append(invalid("series.count", "", "should be at least 2"))
        if not series.get("lastObservedTime"):
            errors.append(required("series.lastObservedTime"))
    if not lookup(obj, "eventTime"):
        errors.append(required("eventTime"))
    kind = lookup(obj, "type")
    if kind not in ("Normal", "Warning"):
        errors.append(invalid("type", "", f"has invalid value: {kind if isinstance(kind, str) else ''}"))
    for member, path in (("deprecatedFirstTimestamp", "firstTimestamp"), ("deprecatedLastTimestamp", "lastTimestamp")):
        if lookup(obj, member):
            errors.append(invalid(path, "", "needs to be unset"))
    if lookup(obj, "deprecatedCount"):
        errors.append(invalid("count", "", "needs to be unset"))
    if text(obj, "deprecatedSource.component") or text(obj, "deprecatedSource.host"):
        errors.append(invalid("source", "", "needs to be unset"))
    return errors


def _strict_event_update(new: Any, old: Any, _: str) -> list[FieldError]:
    """What an events.k8s.io/v1 update may not change (upstream's list, in its order)."""
    errors: list[FieldError] = []
    members = (
        ("regarding", "involvedObject"),
        ("reason", "reason"),
        ("note", "message"),
        ("deprecatedSource", "source"),
        ("deprecatedFirstTimestamp", "firstTimestamp"),
        ("deprecatedLastTimestamp", "lastTimestamp"),
        ("deprecatedCount", "count"),
        ("type", "type"),
        ("eventTime", "eventTime"),
        ("action", "action"),
        ("related", "related"),
        ("reportingController", "reportingController"),
        ("reportingInstance", "reportingInstance"),
    )
    for member, path in members:
        if lookup(new, member) != lookup(old, member):
            errors.append(invalid(path, lookup(new, member), "field is immutable"))
    return errors


# Upstream's update of an Event does not validate the new object (it may have been written through the
# legacy API): a core/v1 update checks nothing more, an events.k8s.io/v1 update only what may not change.
CORE_EVENT = KindRules(create=(Check(_core_event),), revalidate_on_update=False)
EVENT = KindRules(
    create=(Check(_strict_event),), update=(UpdateCheck(_strict_event_update),), revalidate_on_update=False
)

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("discovery.k8s.io", "EndpointSlice"): ENDPOINT_SLICE,
    ("", "Event"): CORE_EVENT,
    ("events.k8s.io", "Event"): EVENT,
}
