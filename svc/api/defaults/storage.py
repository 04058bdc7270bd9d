"""StorageClass, CSIDriver and VolumeAttachment (whose inline volume spec takes a volume source's
defaults, though not the reclaim policy or mode a PersistentVolume object gets)."""

from __future__ import annotations

from svc.api.defaults.quantities import round_resource_list
from svc.api.defaults.volumes import persistent_volume_source
from svc.api.defaults.walk import Obj, child, fill_empty, fill_nil


def storage_class(obj: Obj) -> None:
    fill_nil(obj, "reclaimPolicy", "Delete")
    fill_nil(obj, "volumeBindingMode", "Immediate")


def csi_driver(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    fill_nil(spec, "attachRequired", True)
    fill_nil(spec, "podInfoOnMount", False)
    fill_nil(spec, "storageCapacity", False)
    fill_nil(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType")
    fill_empty(spec, "volumeLifecycleModes", ["Persistent"])
    fill_nil(spec, "requiresRepublish", False)
    fill_nil(spec, "seLinuxMount", False)


def volume_attachment(obj: Obj) -> None:
    inline = child(child(child(obj, "spec"), "source"), "inlineVolumeSpec")
    if inline is not None:
        round_resource_list(inline, "capacity")
        persistent_volume_source(inline)
