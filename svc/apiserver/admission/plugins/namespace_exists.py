"""NamespaceExists: a namespaced write needs its namespace to exist (404 otherwise)."""

from __future__ import annotations

from svc.apiserver.admission.registry import PluginContext
from svc.machinery import status
from svc.machinery.status import GroupResource
from svc.registry.admission import Attributes, Operation


class NamespaceExists:
    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def validate(self, attributes: Attributes) -> None:
        if attributes.operation is Operation.CONNECT or not attributes.namespace:
            return
        if attributes.resource.name == "namespaces" and not attributes.resource.upstream_group:
            return
        if await self._context.get("", "namespaces", "", attributes.namespace) is None:
            raise status.not_found(GroupResource("", "namespaces"), attributes.namespace)


def build(context: PluginContext) -> NamespaceExists:
    return NamespaceExists(context)
