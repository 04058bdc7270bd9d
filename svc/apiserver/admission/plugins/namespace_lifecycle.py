"""NamespaceLifecycle: no new content in a missing or terminating namespace, and the system
namespaces can never be deleted (upstream's default-on plugin of the same name)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from svc.apiserver.admission.registry import PluginContext
from svc.machinery import status
from svc.machinery.status import GroupResource
from svc.registry.admission import Attributes, Operation

NamespaceGetter = Callable[[str], Awaitable[dict[str, Any] | None]]


class NamespaceLifecycle:
    def __init__(self, get_namespace: NamespaceGetter, immortal: frozenset[str]) -> None:
        self._get_namespace = get_namespace
        self._immortal = immortal

    async def validate(self, attributes: Attributes) -> None:
        resource = attributes.resource
        if attributes.operation is Operation.DELETE and resource.name == "namespaces" and not resource.upstream_group:
            if attributes.name in self._immortal:
                raise status.forbidden(resource.group_resource, attributes.name, "this namespace may not be deleted")
            return
        if attributes.operation is not Operation.CREATE or not resource.namespaced or not attributes.namespace:
            return
        namespace = await self._get_namespace(attributes.namespace)
        if namespace is None:
            raise status.not_found(GroupResource("", "namespaces"), attributes.namespace)
        if (namespace.get("status") or {}).get("phase") == "Terminating":
            error = status.forbidden(
                resource.group_resource,
                attributes.name,
                f"unable to create new content in namespace {attributes.namespace} because it is being terminated",
            )
            assert error.details is not None
            error.details["causes"] = [
                {
                    "reason": "NamespaceTerminating",
                    "message": f"namespace {attributes.namespace} is being terminated",
                    "field": "metadata.namespace",
                }
            ]
            raise error


def build(context: PluginContext) -> NamespaceLifecycle:
    profile = context.profile
    immortal = frozenset({"default", profile.system_namespace, profile.public_namespace})

    async def get_namespace(name: str) -> dict[str, Any] | None:
        return await context.get("", "namespaces", "", name)

    return NamespaceLifecycle(get_namespace, immortal)
