"""Columns of the control plane's own kinds: aggregated API services, component statuses, leader
election lease candidates and the storage versions API servers report."""

from __future__ import annotations

from svc.api.columns import descriptions
from svc.api.columns.common import age_column, field, items, listed, name_column, optional_text, text
from svc.wire.views import Column, Obj


def _api_service_backend(service: Obj) -> str:
    """`namespace/name` of the service behind an aggregated API, `Local` for the server's own groups."""
    backend = field(service, "spec", "service")
    return f"{text(backend, 'namespace')}/{text(backend, 'name')}" if isinstance(backend, dict) else "Local"


def _api_service_available(service: Obj) -> str:
    """The `Available` condition's status, with its reason when not True; `Unknown` before it is set."""
    for condition in items(service, "status", "conditions"):
        if text(condition, "type") == "Available":
            state, reason = text(condition, "status"), text(condition, "reason")
            return f"{state} ({reason})" if state != "True" and reason else state
    return "Unknown"


API_SERVICE = (
    name_column(),
    Column(
        "Service",
        "string",
        _api_service_backend,
        description="The reference to the service that hosts this API endpoint.",
    ),
    Column("Available", "string", _api_service_available, description="Whether this service is available."),
    age_column(),
)


def _healthy_condition(status: Obj) -> Obj | None:
    for condition in items(status, "conditions"):
        if text(condition, "type") == "Healthy":
            return condition
    return None


def _component_health(status: Obj) -> str:
    condition = _healthy_condition(status)
    if condition is None:
        return "Unknown"
    return "Healthy" if text(condition, "status") == "True" else "Unhealthy"


COMPONENT_STATUS = (
    name_column(),
    Column("Status", "string", _component_health, description="Status of the component conditions"),
    Column(
        "Message",
        "string",
        lambda obj: text(_healthy_condition(obj), "message"),
        description="Message of the component conditions",
    ),
    Column(
        "Error",
        "string",
        lambda obj: text(_healthy_condition(obj), "error"),
        description="Error of the component conditions",
    ),
)

LEASE_CANDIDATE = (
    name_column(),
    Column(
        "LeaseName",
        "string",
        lambda obj: text(obj, "spec", "leaseName"),
        description=descriptions.LEASE_CANDIDATE_LEASE_NAME,
    ),
    Column(
        "BinaryVersion",
        "string",
        lambda obj: text(obj, "spec", "binaryVersion"),
        description=descriptions.UPSTREAM_EMPTY,
    ),
    Column(
        "EmulationVersion",
        "string",
        lambda obj: text(obj, "spec", "emulationVersion"),
        description=descriptions.UPSTREAM_EMPTY,
    ),
    age_column(),
)


def _storage_versions(version: Obj) -> str:
    """`apiServerID=encodingVersion` of the first three servers, then "+ N more..."; `<unset>` for none."""
    reported = items(version, "status", "storageVersions")
    return listed([f"{text(entry, 'apiServerID')}={text(entry, 'encodingVersion')}" for entry in reported])


STORAGE_VERSION = (
    name_column(),
    Column(
        "CommonEncodingVersion",
        "string",
        optional_text("status", "commonEncodingVersion"),
        description=descriptions.STORAGE_VERSION_COMMON_ENCODING_VERSION,
    ),
    Column(
        "StorageVersions",
        "string",
        _storage_versions,
        description=descriptions.STORAGE_VERSION_STORAGE_VERSIONS,
    ),
    age_column(),
)
