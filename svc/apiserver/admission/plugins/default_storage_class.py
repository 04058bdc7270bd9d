"""DefaultStorageClass: a new claim that names no class gets the default StorageClass."""

from __future__ import annotations

from svc.apiserver.admission.defaults import default_class
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation


class DefaultStorageClass:
    resources = frozenset({("", "persistentvolumeclaims")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        label = context.profile.label
        self._markers = (
            label("storageclass.kubernetes.io/is-default-class"),
            label("storageclass.beta.kubernetes.io/is-default-class"),
        )
        self._beta_class = label("volume.beta.kubernetes.io/storage-class")

    async def admit(self, attributes: Attributes) -> None:
        claim = attributes.object
        if attributes.operation is not Operation.CREATE or not isinstance(claim, dict):
            return
        if not targets(attributes, "", "persistentvolumeclaims"):
            return
        spec = claim.setdefault("spec", {})
        if spec.get("storageClassName") is not None:
            return
        if self._beta_class in ((claim.get("metadata") or {}).get("annotations") or {}):
            return
        chosen = default_class(self._context.list("storage.k8s.io", "storageclasses"), self._markers)
        if chosen is not None:
            spec["storageClassName"] = chosen["metadata"]["name"]


def build(context: PluginContext) -> DefaultStorageClass:
    return DefaultStorageClass(context)
