"""The source of a PersistentVolume, as upstream's `ValidatePersistentVolumeSpec` checks it: exactly one
source, looked at in upstream's order, and the required members of that source."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any, Final

from svc.api.validation.csi_kinds import csi_driver_name_errors
from svc.api.validation.engine import inclusive_range, items, lookup, text
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported, required
from svc.machinery.validation import is_dns1123_label

SourceCheck = Callable[[Any, str], list[FieldError]]

_HOST_PATH_TYPES: Final = (
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
)
# Upstream's patterns, anchored at the end only.
_IQN: Final = re.compile(r"iqn\.\d{4}-\d{2}\.([a-zA-Z0-9\-.]+)(:[^,;*&$|\s]+)$")
_EUI: Final = re.compile(r"eui\.[a-zA-Z0-9]{16}$")
_NAA: Final = re.compile(r"naa\.[a-zA-Z0-9]{32}$")


def _required(source: Any, path: str, *members: str) -> list[FieldError]:
    return [required(f"{path}.{member}") for member in members if not lookup(source, member)]


def _no_backsteps(value: str, path: str) -> list[FieldError]:
    return [invalid(path, value, "must not contain '..'")] if ".." in value.split("/") else []


def _host_path(source: Any, path: str) -> list[FieldError]:
    value = text(source, "path")
    errors = _required(source, path, "path") + _no_backsteps(value, f"{path}.path")
    kind = lookup(source, "type")
    if kind is not None and kind not in _HOST_PATH_TYPES:
        errors.append(not_supported(f"{path}.type", kind, _HOST_PATH_TYPES))
    return errors


def _partition(source: Any, path: str, key: str = "partition") -> list[FieldError]:
    value = lookup(source, key)
    if isinstance(value, int) and not 0 <= value <= 255:
        return [invalid(f"{path}.{key}", value, inclusive_range(0, 255))]
    return []


def _nfs(source: Any, path: str) -> list[FieldError]:
    errors = _required(source, path, "server", "path")
    value = text(source, "path")
    if not posixpath.isabs(value):
        errors.append(invalid(f"{path}.path", value, "must be an absolute path"))
    return errors


def _glusterfs(source: Any, path: str) -> list[FieldError]:
    errors = _required(source, path, "endpoints", "path")
    namespace = text(source, "endpointsNamespace")
    if namespace:
        errors += [invalid(f"{path}.endpointsNamespace", namespace, m) for m in is_dns1123_label(namespace)]
    return errors


def _iqn_errors(iqn: str) -> list[str]:
    for prefix, pattern in (("iqn", _IQN), ("eui", _EUI), ("naa", _NAA)):
        if iqn.startswith(prefix):
            return [] if pattern.search(iqn) else [f"must be valid format starting with {prefix}"]
    return ["must be valid format"]


def _iscsi(source: Any, path: str) -> list[FieldError]:
    errors = _required(source, path, "targetPortal")
    iqn = text(source, "iqn")
    if not iqn:
        errors.append(required(f"{path}.iqn"))
    else:
        errors += [invalid(f"{path}.iqn", iqn, message) for message in _iqn_errors(iqn)]
    return errors + _partition(source, path, "lun")


def _fc(source: Any, path: str) -> list[FieldError]:
    wwns, wwids = items(lookup(source, "targetWWNs")), items(lookup(source, "wwids"))
    errors: list[FieldError] = []
    if not wwns and not wwids:
        errors.append(required(f"{path}.targetWWNs", "must specify either targetWWNs or wwids, but not both"))
    if wwns and wwids:
        detail = "targetWWNs and wwids can not be specified simultaneously"
        errors.append(invalid(f"{path}.targetWWNs", wwns, detail))
    if wwns:
        if lookup(source, "lun") is None:
            errors.append(required(f"{path}.lun", "lun is required if targetWWNs is specified"))
        else:
            errors += _partition(source, path, "lun")
    return errors


def _azure_file(source: Any, path: str) -> list[FieldError]:
    errors = _required(source, path, "secretName", "shareName")
    namespace = text(source, "secretNamespace")
    if namespace:
        errors += [invalid(f"{path}.secretNamespace", namespace, m) for m in is_dns1123_label(namespace)]
    return errors


def _local(source: Any, path: str) -> list[FieldError]:
    value = text(source, "path")
    if not value:
        return [required(f"{path}.path")]
    return _no_backsteps(value, f"{path}.path")


def _csi(source: Any, path: str) -> list[FieldError]:
    return csi_driver_name_errors(text(source, "driver"), f"{path}.driver") + _required(source, path, "volumeHandle")


def _members(*names: str, extra: SourceCheck | None = None) -> SourceCheck:
    def check(source: Any, path: str) -> list[FieldError]:
        errors = _required(source, path, *names)
        return errors + (extra(source, path) if extra else [])

    return check


# Upstream's order, which decides which of several sources is reported as the extra one.
SOURCE_CHECKS: Final[dict[str, SourceCheck]] = {
    "hostPath": _host_path,
    "gcePersistentDisk": _members("pdName", extra=_partition),
    "awsElasticBlockStore": _members("volumeID", extra=_partition),
    "glusterfs": _glusterfs,
    "flocker": _members(),
    "nfs": _nfs,
    "rbd": _members("monitors", "image"),
    "quobyte": _members("registry", "volume"),
    "cephfs": _members("monitors"),
    "iscsi": _iscsi,
    "cinder": _members("volumeID"),
    "fc": _fc,
    "flexVolume": _members("driver"),
    "azureFile": _azure_file,
    "vsphereVolume": _members("volumePath"),
    "photonPersistentDisk": _members("pdID"),
    "portworxVolume": _members("volumeID"),
    "azureDisk": _members("diskName", "diskURI"),
    "scaleIO": _members("gateway", "system", "secretRef"),
    "local": _local,
    "storageos": _members("volumeName"),
    "csi": _csi,
}


def source_errors(spec: Any, path: str) -> list[FieldError]:
    """Exactly one source; only the first (in upstream's order) is checked further."""
    errors: list[FieldError] = []
    found = False
    for key, check in SOURCE_CHECKS.items():
        source = lookup(spec, key)
        if source is None:
            continue
        if found:
            errors.append(forbidden(f"{path}.{key}", "may not specify more than 1 volume type"))
            continue
        found = True
        errors += check(source, f"{path}.{key}")
    if not found:
        errors.append(required(path, "must specify a volume type"))
    return errors
