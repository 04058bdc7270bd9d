"""PersistentVolumeClaimResize: a claim may grow only when it is bound and its StorageClass allows
volume expansion."""

from __future__ import annotations

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.machinery.quantity import Quantity, quantity_or_none
from svc.registry.admission import Attributes, Operation


def _storage(claim: dict) -> Quantity | None:
    return quantity_or_none((((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage"))


class PersistentVolumeClaimResize:
    resources = frozenset({("", "persistentvolumeclaims")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        self._beta_class = context.profile.label("volume.beta.kubernetes.io/storage-class")

    async def validate(self, attributes: Attributes) -> None:
        claim, old = attributes.object, attributes.old_object
        if attributes.operation is not Operation.UPDATE or not isinstance(claim, dict) or old is None:
            return
        if not targets(attributes, "", "persistentvolumeclaims"):
            return
        new_size, old_size = _storage(claim), _storage(old)
        if new_size is None or old_size is None or new_size <= old_size:
            return
        if (old.get("status") or {}).get("phase") != "Bound":
            raise forbidden(attributes, "Only bound persistent volume claims can be expanded")
        if not await self._allows_resize(claim):
            raise forbidden(
                attributes,
                "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc "
                "must support resize",
            )

    async def _allows_resize(self, claim: dict) -> bool:
        name = (claim.get("spec") or {}).get("storageClassName")
        if name is None:
            name = ((claim.get("metadata") or {}).get("annotations") or {}).get(self._beta_class)
        if not name:
            return False
        storage_class = await self._context.get("storage.k8s.io", "storageclasses", "", name)
        return bool(storage_class and storage_class.get("allowVolumeExpansion"))


def build(context: PluginContext) -> PersistentVolumeClaimResize:
    return PersistentVolumeClaimResize(context)
