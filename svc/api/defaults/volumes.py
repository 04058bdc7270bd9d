"""Volumes, persistent volume sources and claim specs: the defaults upstream gives their nested types.

A pod volume that names no source becomes an `emptyDir`. Sources shared by pod volumes and persistent
volumes (hostPath, rbd, iscsi, azureDisk, scaleIO) default the same way in both places; the file-mode
sources get mode 0644 (420) and their downward API items the `v1` field-selector version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from svc.api.defaults.image import pull_policy
from svc.api.defaults.quantities import round_requirements
from svc.api.defaults.walk import Obj, child, entries, fill, fill_nil

FILE_MODE: Final = 420
TOKEN_EXPIRATION_SECONDS: Final = 3600
FILESYSTEM: Final = "Filesystem"

# Every source a pod volume may name (upstream's VolumeSource fields, release 1.36).
VOLUME_SOURCES: Final = frozenset(
    {
        "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs",
        "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker",
        "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
        "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral",
        "image",
    }
)  # fmt: skip


def field_selector(item: Obj | None) -> None:
    """Downward API items and env vars: a field selector names its API version, `v1` by default."""
    selector = child(item, "fieldRef")
    if selector is not None:
        fill(selector, "apiVersion", "v1")


def _host_path(source: Obj) -> None:
    fill_nil(source, "type", "")


def _rbd(source: Obj) -> None:
    fill(source, "pool", "rbd")
    fill(source, "user", "admin")
    fill(source, "keyring", "/etc/ceph/keyring")


def _iscsi(source: Obj) -> None:
    fill(source, "iscsiInterface", "default")


def _azure_disk(source: Obj) -> None:
    fill_nil(source, "cachingMode", "ReadWrite")
    fill_nil(source, "fsType", "ext4")
    fill_nil(source, "readOnly", False)
    fill_nil(source, "kind", "Shared")


def _scale_io(source: Obj) -> None:
    fill(source, "storageMode", "ThinProvisioned")
    fill(source, "fsType", "xfs")


def _file_mode(source: Obj) -> None:
    fill_nil(source, "defaultMode", FILE_MODE)


def _downward_api(source: Obj) -> None:
    _file_mode(source)
    for item in entries(source, "items"):
        field_selector(item)


def _projected(source: Obj) -> None:
    _file_mode(source)
    for projection in entries(source, "sources"):
        for item in entries(child(projection, "downwardAPI"), "items"):
            field_selector(item)
        token = child(projection, "serviceAccountToken")
        if token is not None:
            fill_nil(token, "expirationSeconds", TOKEN_EXPIRATION_SECONDS)


def _ephemeral(source: Obj) -> None:
    claim_spec(child(child(source, "volumeClaimTemplate"), "spec"))


def _image(source: Obj) -> None:
    reference = source.get("reference")
    fill(source, "pullPolicy", pull_policy(reference if isinstance(reference, str) else ""))


_SHARED_SOURCES: Final[dict[str, Callable[[Obj], None]]] = {
    "hostPath": _host_path,
    "rbd": _rbd,
    "iscsi": _iscsi,
    "azureDisk": _azure_disk,
    "scaleIO": _scale_io,
}
_POD_SOURCES: Final[dict[str, Callable[[Obj], None]]] = {
    **_SHARED_SOURCES,
    "secret": _file_mode,
    "configMap": _file_mode,
    "downwardAPI": _downward_api,
    "projected": _projected,
    "ephemeral": _ephemeral,
    "image": _image,
}


def _apply_sources(obj: Obj, defaulters: dict[str, Callable[[Obj], None]]) -> None:
    for name, defaulter in defaulters.items():
        source = child(obj, name)
        if source is not None:
            defaulter(source)


def pod_volume(volume: Obj) -> None:
    if all(volume.get(name) is None for name in VOLUME_SOURCES):
        volume["emptyDir"] = {}
    _apply_sources(volume, _POD_SOURCES)


def persistent_volume_source(spec: Obj) -> None:
    """The source of a persistent volume spec (also inlined in a VolumeAttachment)."""
    _apply_sources(spec, _SHARED_SOURCES)


def claim_spec(spec: Obj | None) -> None:
    """A claim spec, standalone or templated: filesystem mode and rounded resources."""
    if spec is None:
        return
    fill_nil(spec, "volumeMode", FILESYSTEM)
    round_requirements(spec)
