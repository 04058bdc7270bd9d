"""AlwaysPullImages: every container of a new pod (or one whose images change) pulls its image
always, so a pod cannot use another tenant's image cached on a node without its pull secret."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import is_pod
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
_FIELDS = ("initContainers", "containers", "ephemeralContainers")


def _containers(spec: Obj) -> Iterator[tuple[str, int, Obj]]:
    for field in _FIELDS:
        for index, container in enumerate(spec.get(field) or []):
            yield field, index, container


def _images(pod: Obj) -> set[str]:
    return {c.get("image", "") for _, _, c in _containers(pod.get("spec") or {})}


class AlwaysPullImages:
    resources = frozenset({("", "pods")})

    def _applies(self, attributes: Attributes) -> bool:
        if not is_pod(attributes, ("", "ephemeralcontainers")):
            return False
        if attributes.operation is Operation.CREATE:
            return True
        if attributes.operation is Operation.UPDATE and attributes.old_object is not None:
            return not _images(attributes.object or {}) <= _images(attributes.old_object)
        return False

    async def admit(self, attributes: Attributes) -> None:
        if self._applies(attributes):
            for _, _, container in _containers((attributes.object or {}).get("spec") or {}):
                container["imagePullPolicy"] = "Always"

    async def validate(self, attributes: Attributes) -> None:
        if not self._applies(attributes):
            return
        for field, index, container in _containers((attributes.object or {}).get("spec") or {}):
            policy = container.get("imagePullPolicy", "")
            if policy != "Always":
                raise forbidden(
                    attributes,
                    f'spec.{field}[{index}].imagePullPolicy: Unsupported value: "{policy}": supported values: "Always"',
                )


def build(context: PluginContext) -> AlwaysPullImages:
    return AlwaysPullImages()
