"""The custom resources this server serves: stores, watch caches, table columns and definitions,
added and removed while the server runs, as CRDs become Established and go.

Each served version gets a `GenericStore` with the version's strategy; the versions of one CRD share
one watch cache (their objects share one storage prefix, `/<group>/<plural>/`). The served
`ResourceSet` keeps one entry per group; after each change discovery and OpenAPI are rebuilt
lazily (new objects, documents built on their next request).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import orjson

from svc.api.conversion import storage_version
from svc.api.resources import Resource, version_priority
from svc.api.schemas import is_built_in, put_definitions
from svc.apiserver.apiextensions.columns import columns_of
from svc.apiserver.apiextensions.conversion import build_converter, write_storage_version
from svc.apiserver.apiextensions.converting import ConvertingObjects, ConvertingStore
from svc.apiserver.apiextensions.custom_schema import SchemaRules
from svc.apiserver.apiextensions.defaulting_store import DefaultingStore, declares_defaults
from svc.apiserver.apiextensions.definitions import definitions_of
from svc.apiserver.apiextensions.served import resources_of, version_entry
from svc.apiserver.apiextensions.served import storage_version as storage_version_of_crd
from svc.apiserver.apiextensions.strategy import custom_strategy
from svc.apiserver.discovery import Discovery
from svc.apiserver.openapi import OpenAPI
from svc.apiserver.webhook_client import WebhookClient
from svc.apiserver.webhook_service_resolver import endpoints_resolver
from svc.machinery import status
from svc.registry.hooks import Finish
from svc.registry.store import GenericStore
from svc.storage.watch_cache import WatchCache
from svc.wire.views import Column

Obj = dict[str, Any]
log = logging.getLogger(__name__)


async def _nothing_to_finish(stored: bool) -> None:
    return None


@dataclass
class _Served:
    """What one CRD serves, and the parts of it that decide how (to skip rebuilding for a status change)."""

    group: str
    fingerprint: bytes
    resources: list[Resource]
    prefix: str
    cache: WatchCache | None
    definitions: set[str] = field(default_factory=set)
    terminating: bool = False


class _CreateGuard:
    """Upstream refuses new custom resources while their CRD is terminating (its instances are being
    deleted); reads, updates and deletes go on."""

    def __init__(self, served: _Served) -> None:
        self.served = served

    def _check(self) -> None:
        if self.served.terminating:
            resource = self.served.resources[0]
            raise status.StatusError(
                405,
                "MethodNotAllowed",
                "create not allowed while custom resource definition is terminating",
                {"group": resource.group, "kind": resource.name},
            )

    async def begin_create(self, namespace: str, obj: Obj, *, dry_run: bool) -> Finish:
        self._check()
        return _nothing_to_finish

    async def begin_update(self, new: Obj, old: Obj, *, dry_run: bool) -> Finish:
        return _nothing_to_finish

    async def begin_subresource_update(self, subresource: str, new: Obj, old: Obj) -> None:
        return None

    async def after_delete(self, obj: Obj) -> None:
        return None


def _fingerprint(crd: Obj) -> bytes:
    names = (crd.get("status") or {}).get("acceptedNames")
    return orjson.dumps([crd.get("spec"), names], option=orjson.OPT_SORT_KEYS)


class ServedCustomResources:
    def __init__(self, server: Any) -> None:
        self.server = server
        self._served: dict[str, _Served] = {}
        self._built_in_groups = frozenset(group.name for group in server.resources.groups)
        self._storage_versions: dict[tuple[str, str], str] = {}
        self.webhooks = WebhookClient(endpoints_resolver(self._core_object))
        self.columns: dict[tuple[str, str, str], tuple[Column, ...]] = {}

    async def _core_object(self, resource: str, namespace: str, name: str) -> Obj | None:
        """A Service or its Endpoints, for conversion webhooks named by a service reference."""
        try:
            return await self.server.store_for("", resource).get(namespace, name)
        except status.StatusError as error:
            if error.code == 404:
                return None
            raise

    def stores_of(self, crd_name: str) -> list[GenericStore]:
        served = self._served.get(crd_name)
        if served is None:
            return []
        return [store for r in served.resources if (store := self.server.stores.get((r.group, r.version, r.name)))]

    def is_served(self, crd_name: str) -> bool:
        return crd_name in self._served

    def mark_terminating(self, crd_name: str) -> None:
        served = self._served.get(crd_name)
        if served is not None:
            served.terminating = True

    async def serve(self, crd: Obj) -> None:
        """Serve (or serve anew after a change of its spec or names) an Established CRD."""
        name = crd["metadata"]["name"]
        fingerprint = _fingerprint(crd)
        old = self._served.get(name)
        if old is not None and old.fingerprint == fingerprint:
            return
        resources = resources_of(crd)
        group = (crd.get("spec") or {}).get("group", "")
        if group in self._built_in_groups:
            log.warning("CRD %s is not served: its group %s is a built-in one", name, group)
            return
        prefix = self.server.options.store_prefix + (resources[0].storage_prefix if resources else "")
        by_webhook = ((crd.get("spec") or {}).get("conversion") or {}).get("strategy") == "Webhook"
        cache = old.cache if old is not None and old.prefix == prefix and not by_webhook else None
        if old is not None and old.cache is not None and old.cache is not cache:
            await self._drop_cache(old)
        if cache is None and resources and self.server.options.watch_cache and not by_webhook:
            cache = self.server.caches[prefix] = WatchCache(self.server.objects, prefix)
            await cache.start()
        served = _Served(group, fingerprint, resources, prefix, cache, terminating=old.terminating if old else False)
        self._forget_stores(old)
        guard = _CreateGuard(served)
        converter = build_converter(crd, webhooks=self.webhooks, profile=self.server.profile) if by_webhook else None
        stored_as = f"{group}/{storage_version_of_crd(crd)}"
        if resources:
            self._storage_versions[(group, resources[0].name)] = storage_version_of_crd(crd)
        for resource in resources:
            store = self._store(crd, resource, cache, converter, stored_as)
            store.hooks = guard
            self.server.stores[(resource.group, resource.version, resource.name)] = store
            self.columns[(resource.group, resource.version, resource.name)] = columns_of(
                version_entry(crd, resource.version)
            )
        # A CRD group spelled like a built-in package (`api.k8s.io`) must not replace a built-in schema.
        found = {name: schema for name, schema in definitions_of(crd).items() if not is_built_in(name)}
        served.definitions = set(found)
        put_definitions(found, gone=(old.definitions - served.definitions) if old else ())
        self._served[name] = served
        self._regroup(group)

    def _store(
        self, crd: Obj, resource: Resource, cache: WatchCache | None, converter: Any, stored_as: str
    ) -> GenericStore:
        """The store of one served version: converting by webhook, defaulting what it reads when the
        schema declares defaults, else the plain generic store; all write the storage version."""
        rules = SchemaRules.for_version(crd, resource.version)
        strategy = custom_strategy(crd, resource, self.server.profile, rules)
        root = self.server.options.store_prefix
        if converter is not None:
            objects = ConvertingObjects(self.server.objects, converter, resource.api_version, stored_as)
            return ConvertingStore(strategy, objects, None, root)
        if declares_defaults(version_entry(crd, resource.version).get("schema")):
            store = DefaultingStore(strategy, self.server.objects, cache, root, apply_defaults=rules.apply_defaults)
        else:
            store = GenericStore(strategy, self.server.objects, cache, root)
        store.watch_from_history = self.server.options.watch_from_history
        write_storage_version(store, stored_as)
        return store

    async def unserve(self, crd_name: str) -> None:
        served = self._served.pop(crd_name, None)
        if served is None:
            return
        self._forget_stores(served)
        if served.resources:
            self._storage_versions.pop((served.group, served.resources[0].name), None)
        put_definitions({}, gone=served.definitions)
        if served.cache is not None:
            await self._drop_cache(served)
        self._regroup(served.group)

    async def stop(self) -> None:
        for name in list(self._served):
            served = self._served.pop(name)
            put_definitions({}, gone=served.definitions)
            if served.cache is not None:
                await self._drop_cache(served)
        await self.webhooks.close()

    async def _drop_cache(self, served: _Served) -> None:
        assert served.cache is not None
        if self.server.caches.get(served.prefix) is served.cache:
            del self.server.caches[served.prefix]
        await served.cache.stop()

    def _forget_stores(self, served: _Served | None) -> None:
        if served is None:
            return
        for resource in served.resources:
            key = (resource.group, resource.version, resource.name)
            self.server.stores.pop(key, None)
            self.columns.pop(key, None)

    def _storage_version_of(self, resource: Resource) -> tuple[str, str]:
        """A custom resource is stored in its CRD's storage version; a built-in one as the table says."""
        stored = self._storage_versions.get((resource.group, resource.name))
        return (resource.group, stored) if stored else storage_version(resource)

    def _regroup(self, group: str) -> None:
        members = [served for served in self._served.values() if served.group == group]
        resources = [resource for served in members for resource in served.resources]
        versions = sorted({r.version for r in resources}, key=lambda v: (version_priority(v), v))
        self.server.resources.replace_group(group, resources, versions)
        server = self.server
        server.discovery = Discovery(
            server.resources, server.served_subresources, server.discovery.server_address, self._storage_version_of
        )
        server.openapi = OpenAPI(server.resources, server.profile)
