"""NamespaceAutoProvision: creating something in a namespace that does not exist creates the namespace."""

from __future__ import annotations

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.registry import PluginContext
from svc.machinery import status
from svc.registry.admission import Attributes, NoAdmission, Operation
from svc.registry.options import WriteOptions


class NamespaceAutoProvision:
    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def admit(self, attributes: Attributes) -> None:
        if attributes.operation is not Operation.CREATE or not attributes.namespace or attributes.dry_run:
            return  # a dry run has no side effects
        if attributes.resource.name == "namespaces" and not attributes.resource.upstream_group:
            return
        if await self._context.get("", "namespaces", "", attributes.namespace) is not None:
            return
        store = self._context.store("", "namespaces")
        assert store is not None
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": attributes.namespace}}
        try:
            await store.create("", namespace, admission=NoAdmission(), user=attributes.user, options=WriteOptions())
        except status.StatusError as error:
            if error.code != 409:
                raise forbidden(attributes, error.message) from None


def build(context: PluginContext) -> NamespaceAutoProvision:
    return NamespaceAutoProvision(context)
