"""Reading the objects policies refer to (parameters, namespaces) from the server's stores.

Reads go through the stores at `resourceVersion=0`, so they are served by the watch caches
(upstream reads them from informers) and never wait on the backend.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from svc.api.resources import Resource, ResourceSet
from svc.machinery import status
from svc.machinery.labels import LabelSelector
from svc.registry.options import ListOptions
from svc.registry.store import GenericStore


class Objects:
    def __init__(self, resources: ResourceSet, stores: Mapping[tuple[str, str, str], GenericStore]) -> None:
        self._resources = resources
        self._stores = stores

    def resource_for(self, api_version: str, kind: str) -> Resource | None:
        group, _, version = api_version.rpartition("/")
        return self._resources.for_kind(group, version, kind)

    def _store(self, resource: Resource) -> GenericStore:
        return self._stores[(resource.group, resource.version, resource.name)]

    async def get(self, resource: Resource, namespace: str, name: str) -> dict[str, Any] | None:
        store = self._store(resource)
        if store.cache is not None:
            cached = store.cache.get(store.key(namespace, name))
            if cached is not None:
                return store.present(cached)
        try:
            return await store.get(namespace, name)
        except status.StatusError as error:
            if error.code == 404:
                return None
            raise

    async def list(self, resource: Resource, namespace: str, selector: LabelSelector) -> list[dict[str, Any]]:
        listed = await self._store(resource).list(namespace, ListOptions(label_selector=selector, resource_version="0"))
        return list(listed.get("items") or [])
