"""Columns of the storage.k8s.io kinds: storage classes, volume attributes classes, CSI drivers and nodes,
and volume attachments. CSIStorageCapacity is one of the few kinds upstream registers with the default
table (`Name`, `Created At`) although a printer exists, so it has no entry here."""

from __future__ import annotations

from collections.abc import Callable

from svc.api.columns import descriptions
from svc.api.columns.common import (
    NONE,
    UNSET,
    age_column,
    count,
    field,
    flag,
    items,
    mapping,
    name_column,
    text,
)
from svc.wire.views import Column, Obj

_DEFAULT_STORAGE_CLASS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
_DEFAULT_VOLUME_ATTRIBUTES_CLASS = ("volumeattributesclass.alpha.kubernetes.io/is-default-class",)


def _name_marking_default(annotations: tuple[str, ...]) -> Callable[[Obj], str]:
    """The name, with " (default)" when an annotation marks the class as the default one."""

    def cell(obj: Obj) -> str:
        name = text(obj, "metadata", "name")
        marks = mapping(obj, "metadata", "annotations")
        return f"{name} (default)" if any(marks.get(key) == "true" for key in annotations) else name

    return cell


def _name_column(annotations: tuple[str, ...]) -> Column:
    plain = name_column()
    return Column(plain.name, plain.type, _name_marking_default(annotations), plain.format, plain.description)


STORAGE_CLASS = (
    name_column(cell=_name_marking_default(_DEFAULT_STORAGE_CLASS)),
    Column(
        "Provisioner",
        "string",
        lambda obj: text(obj, "provisioner"),
        description=descriptions.STORAGE_CLASS_PROVISIONER,
    ),
    Column(
        "ReclaimPolicy",
        "string",
        lambda obj: text(obj, "reclaimPolicy") or "Delete",
        description=descriptions.STORAGE_CLASS_RECLAIM_POLICY,
    ),
    Column(
        "VolumeBindingMode",
        "string",
        lambda obj: text(obj, "volumeBindingMode") or "Immediate",
        description=descriptions.STORAGE_CLASS_VOLUME_BINDING_MODE,
    ),
    Column(
        "AllowVolumeExpansion",
        "string",
        lambda obj: flag(obj, "allowVolumeExpansion", default=False),
        description=descriptions.STORAGE_CLASS_ALLOW_VOLUME_EXPANSION,
    ),
    age_column(),
)

VOLUME_ATTRIBUTES_CLASS = (
    name_column(cell=_name_marking_default(_DEFAULT_VOLUME_ATTRIBUTES_CLASS)),
    Column(
        "DriverName",
        "string",
        lambda obj: text(obj, "driverName"),
        description=descriptions.VOLUME_ATTRIBUTES_CLASS_DRIVER_NAME,
    ),
    age_column(),
)


def _token_audiences(driver: Obj) -> str:
    requests = field(driver, "spec", "tokenRequests")
    if not isinstance(requests, list):
        return UNSET
    return ",".join(text(request, "audience") for request in requests)


CSI_DRIVER = (
    name_column(),
    Column(
        "AttachRequired",
        "boolean",
        lambda obj: flag(obj, "spec", "attachRequired", default=True),
        description=descriptions.CSI_DRIVER_ATTACH_REQUIRED,
    ),
    Column(
        "PodInfoOnMount",
        "boolean",
        lambda obj: flag(obj, "spec", "podInfoOnMount", default=False),
        description=descriptions.CSI_DRIVER_POD_INFO_ON_MOUNT,
    ),
    Column(
        "StorageCapacity",
        "boolean",
        lambda obj: flag(obj, "spec", "storageCapacity", default=False),
        description=descriptions.CSI_DRIVER_STORAGE_CAPACITY,
    ),
    Column("TokenRequests", "string", _token_audiences, description=descriptions.CSI_DRIVER_TOKEN_REQUESTS),
    Column(
        "RequiresRepublish",
        "boolean",
        lambda obj: flag(obj, "spec", "requiresRepublish", default=False),
        description=descriptions.CSI_DRIVER_REQUIRES_REPUBLISH,
    ),
    Column(
        "Modes",
        "string",
        lambda obj: ",".join(str(mode) for mode in items(obj, "spec", "volumeLifecycleModes")) or NONE,
        description=descriptions.CSI_DRIVER_MODES,
    ),
    age_column(),
)

CSI_NODE = (
    name_column(),
    Column(
        "Drivers",
        "integer",
        count("spec", "drivers"),
        description="Drivers indicates the number of CSI drivers registered on the node",
    ),
    age_column(),
)

VOLUME_ATTACHMENT = (
    name_column(),
    Column(
        "Attacher",
        "string",
        lambda obj: text(obj, "spec", "attacher"),
        "name",
        descriptions.VOLUME_ATTACHMENT_ATTACHER,
    ),
    Column(
        "PV",
        "string",
        lambda obj: text(obj, "spec", "source", "persistentVolumeName"),
        description=descriptions.VOLUME_ATTACHMENT_PV,
    ),
    Column(
        "Node",
        "string",
        lambda obj: text(obj, "spec", "nodeName"),
        description=descriptions.VOLUME_ATTACHMENT_NODE,
    ),
    Column(
        "Attached",
        "boolean",
        lambda obj: flag(obj, "status", "attached", default=False),
        description=descriptions.VOLUME_ATTACHMENT_ATTACHED,
    ),
    age_column(),
)
