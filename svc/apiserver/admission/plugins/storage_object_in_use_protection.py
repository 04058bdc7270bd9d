"""StorageObjectInUseProtection: new PersistentVolumes and claims get the protection finalizer, so the
protection controllers can hold their deletion while they are in use."""

from __future__ import annotations

from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation


class StorageObjectInUseProtection:
    resources = frozenset({("", "persistentvolumes"), ("", "persistentvolumeclaims")})

    def __init__(self, context: PluginContext) -> None:
        label = context.profile.label
        self._finalizers = {
            "persistentvolumes": label("kubernetes.io/pv-protection"),
            "persistentvolumeclaims": label("kubernetes.io/pvc-protection"),
        }

    async def admit(self, attributes: Attributes) -> None:
        obj = attributes.object
        if attributes.operation is not Operation.CREATE or not isinstance(obj, dict):
            return
        finalizer = self._finalizers.get(attributes.resource.name)
        if finalizer is None or not targets(attributes, "", attributes.resource.name):
            return
        metadata = obj.setdefault("metadata", {})
        finalizers = list(metadata.get("finalizers") or [])
        if finalizer not in finalizers:
            metadata["finalizers"] = [*finalizers, finalizer]


def build(context: PluginContext) -> StorageObjectInUseProtection:
    return StorageObjectInUseProtection(context)
