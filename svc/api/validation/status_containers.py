"""What a pod's `/status` write must satisfy in its container statuses beyond the state transitions
(upstream `validateContainerStatusUsers`, `validateContainerStatusAllocatedResourcesStatus` and
`validateContainerStatusNoAllocatedResourcesStatus`, checked against the 1.36 source)."""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, lookup, mapping, text
from svc.machinery.field_errors import FieldError, duplicate, forbidden, invalid, not_supported, required, too_long

_MAX_ID: Final = 2**31 - 1
_ID_RANGE: Final = f"must be between 0 and {_MAX_ID}, inclusive"
_HEALTH: Final = ("Healthy", "Unhealthy", "Unknown")
_MAX_HEALTH_MESSAGE: Final = 1024  # upstream's `ResourceHealthMessageMaxLength`
_MAX_IMAGE_REF: Final = 256
_KEYS: Final = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
_SPEC_KEYS: Final = {"containerStatuses": "containers", "initContainerStatuses": "initContainers"}


def _id_errors(value: Any, path: str) -> list[FieldError]:
    if type(value) is int and not 0 <= value <= _MAX_ID:
        return [invalid(path, value, _ID_RANGE)]
    return []


def _user_errors(statuses: list[Any], path: str, os_name: str) -> list[FieldError]:
    """A Linux pod's reported user ids are in range; a Windows pod reports no Linux user."""
    errors: list[FieldError] = []
    for index, status in enumerate(statuses):
        linux = lookup(status, "user.linux")
        where = f"{path}[{index}].user.linux"
        if linux is None:
            continue
        if os_name == "windows":
            errors.append(forbidden(where, "cannot be set for a windows pod"))
        elif os_name == "linux":
            errors += _id_errors(lookup(linux, "uid"), f"{where}.uid")
            errors += _id_errors(lookup(linux, "gid"), f"{where}.gid")
            for group_index, group in enumerate(items(lookup(linux, "supplementalGroups"))):
                errors += _id_errors(group, f"{where}.supplementalGroups[{group_index}]")
    return errors


def _claim_names(container: Any) -> set[str]:
    names = set()
    for claim in items(lookup(container, "resources.claims")):
        request = text(claim, "request")
        names.add(f"claim:{text(claim, 'name')}/{request}" if request else f"claim:{text(claim, 'name')}")
    return names


def _name_error(container: Any, name: str, path: str) -> list[FieldError]:
    if name.startswith("claim:"):
        if name in _claim_names(container):
            return []
        detail = (
            "must match one of the container's resource claims in a format 'claim:<claimName>/<request>' "
            "or 'claim:<claimName>' if request is empty"
        )
        return [invalid(path, name, detail)]
    if name in mapping(container, "resources.requests"):
        return []
    return [invalid(path, name, "must match one of the container's resource requests")]


def _health_message_errors(message: Any, path: str) -> list[FieldError]:
    """A device's health message, when given, says something and fits upstream's 1 KiB."""
    if not isinstance(message, str):
        return []
    if not message:
        return [required(path, "must be non-empty if specified")]
    if len(message.encode()) > _MAX_HEALTH_MESSAGE:
        return [too_long(path, _MAX_HEALTH_MESSAGE)]
    return []


def _allocated_errors(statuses: list[Any], path: str, containers: list[Any]) -> list[FieldError]:
    """Each reported resource is one the container asks for (a status of an unknown container is not
    judged on that), with unique resource IDs of a known health."""
    by_name = {text(container, "name"): container for container in containers}
    errors: list[FieldError] = []
    for index, status in enumerate(statuses):
        container = by_name.get(text(status, "name"))
        for entry_index, entry in enumerate(items(lookup(status, "allocatedResourcesStatus"))):
            where = f"{path}[{index}].allocatedResourcesStatus[{entry_index}]"
            if container is not None:
                errors += _name_error(container, text(entry, "name"), f"{where}.name")
            seen: set[str] = set()
            for resource_index, resource in enumerate(items(lookup(entry, "resources"))):
                at = f"{where}.resources[{resource_index}]"
                health = text(resource, "health")
                if health not in _HEALTH:
                    errors.append(not_supported(f"{at}.health", health, _HEALTH))
                errors += _health_message_errors(lookup(resource, "message"), f"{at}.message")
                resource_id = text(resource, "resourceID")
                if resource_id in seen:
                    errors.append(duplicate(f"{at}.resourceID", resource_id))
                seen.add(resource_id)
    return errors


def _volume_status_errors(statuses: list[Any], path: str) -> list[FieldError]:
    """Upstream's `validateVolumeStatus` (ImageVolumeWithDigest): an image volume's reported digest is
    given and at most 256 bytes. Upstream names the path `imageVolumeStatus`, not the field's `image`.
    It checks only with the gate on or the stored status using it; otherwise the field is dropped first."""
    errors: list[FieldError] = []
    for index, status in enumerate(statuses):
        for mount_index, mount in enumerate(items(lookup(status, "volumeMounts"))):
            image = lookup(mount, "volumeStatus.image")
            if image is None:
                continue
            where = f"{path}[{index}].volumeMounts[{mount_index}].volumeStatus.imageVolumeStatus.imageRef"
            reference = text(image, "imageRef")
            if not reference:
                errors.append(required(where, "imageRef must not be empty"))
            if len(reference.encode()) > _MAX_IMAGE_REF:
                errors.append(too_long(where, _MAX_IMAGE_REF))
    return errors


def container_status_errors(new: Any, _: Any, __: str) -> list[FieldError]:
    """Reported users, then reported device health (ephemeral containers are allocated nothing), then
    image volume digests."""
    os_name = text(new, "spec.os.name") or "linux"
    statuses = {key: items(lookup(new, f"status.{key}")) for key in _KEYS}
    errors: list[FieldError] = []
    for key in _KEYS:
        errors += _user_errors(statuses[key], f"status.{key}", os_name)
    for key, spec_key in _SPEC_KEYS.items():
        errors += _allocated_errors(statuses[key], f"status.{key}", items(lookup(new, f"spec.{spec_key}")))
    for index, status in enumerate(statuses["ephemeralContainerStatuses"]):
        if items(lookup(status, "allocatedResourcesStatus")):
            path = f"status.ephemeralContainerStatuses[{index}].allocatedResourcesStatus"
            errors.append(forbidden(path, "must not be specified in container status"))
    for key in _KEYS:
        errors += _volume_status_errors(statuses[key], f"status.{key}")
    return errors
