"""Discovery documents: `/api`, `/apis`, per group and per group version, and aggregated discovery.

All of them are derived from the served `ResourceSet` once, at start, and kept as encoded bytes:
clients fetch discovery on nearly every command.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any

from svc.api.conversion import storage_version
from svc.api.resources import Group, Resource, ResourceSet
from svc.wire.formats import encode_json

AGGREGATED_KIND = "APIGroupDiscoveryList"
AGGREGATED_VERSIONS = ("v2", "v2beta1")
_VERB_ORDER = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


def _verbs(verbs: Any) -> list[str]:
    return [verb for verb in _VERB_ORDER if verb in verbs] + sorted(set(verbs) - set(_VERB_ORDER))


StorageVersionOf = Callable[[Resource], tuple[str, str]]


def _storage_version_hash(resource: Resource, storage_version_of: StorageVersionOf) -> str:
    group, version = storage_version_of(resource)
    digest = hashlib.sha256(f"{group}/{version}/{resource.kind}".encode()).digest()
    return __import__("base64").b64encode(digest[:8]).decode()


class Discovery:
    def __init__(
        self,
        resources: ResourceSet,
        served_subresources: frozenset[str],
        server_address: str,
        storage_version_of: StorageVersionOf = storage_version,
    ) -> None:
        """`storage_version_of` names the version a resource is stored in (a CRD says it for its own)."""
        self.resources = resources
        self.storage_version_of = storage_version_of
        self.served_subresources = served_subresources
        self.server_address = server_address

    def _subresources(self, resource: Resource) -> list[Any]:
        return [sub for name, sub in sorted(resource.subresources.items()) if name in self.served_subresources]

    def _resource_list_entries(self, resource: Resource) -> list[dict[str, Any]]:
        entry: dict[str, Any] = {
            "name": resource.name,
            "singularName": resource.singular,
            "namespaced": resource.namespaced,
            "kind": resource.kind,
            "verbs": _verbs(resource.verbs),
        }
        if resource.short_names:
            entry["shortNames"] = list(resource.short_names)
        if resource.categories:
            entry["categories"] = list(resource.categories)
        if resource.stored:
            entry["storageVersionHash"] = _storage_version_hash(resource, self.storage_version_of)
        entries = [entry]
        for sub in self._subresources(resource):
            sub_entry: dict[str, Any] = {
                "name": f"{resource.name}/{sub.name}",
                "singularName": "",
                "namespaced": resource.namespaced,
                "kind": sub.kind,
                "verbs": _verbs(sub.verbs),
            }
            if sub.group != resource.group or sub.version != resource.version:
                sub_entry["group"], sub_entry["version"] = sub.group, sub.version
            entries.append(sub_entry)
        return entries

    @functools.cached_property
    def api_versions(self) -> bytes:
        return encode_json(
            {
                "kind": "APIVersions",
                "versions": list(self._group("").versions) if self._group("") else [],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": self.server_address}],
            }
        )

    def _group(self, name: str) -> Group | None:
        return self.resources.group(name)

    def _group_object(self, group: Group) -> dict[str, Any]:
        return {
            "name": group.name,
            "versions": [{"groupVersion": f"{group.name}/{v}", "version": v} for v in group.versions],
            "preferredVersion": {
                "groupVersion": f"{group.name}/{group.preferred}",
                "version": group.preferred,
            },
        }

    @functools.cached_property
    def api_group_list(self) -> bytes:
        groups = [self._group_object(group) for group in self.resources.groups if group.name]
        return encode_json({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})

    @functools.cache  # noqa: B019 - one Discovery per server, bounded by the served groups
    def api_group(self, name: str) -> bytes | None:
        group = self._group(name)
        if group is None or not name:
            return None
        return encode_json({"kind": "APIGroup", "apiVersion": "v1", **self._group_object(group)})

    @functools.cache  # noqa: B019 - bounded by the served group versions
    def resource_list(self, group: str, version: str) -> bytes | None:
        resources = self.resources.in_group_version(group, version)
        if not resources:
            return None
        entries = [entry for resource in resources for entry in self._resource_list_entries(resource)]
        group_version = f"{group}/{version}" if group else version
        return encode_json(
            {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": group_version,
                "resources": entries,
            }
        )

    def _aggregated_resource(self, resource: Resource) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "resource": resource.name,
            "responseKind": {"group": "", "version": "", "kind": resource.kind},
            "scope": "Namespaced" if resource.namespaced else "Cluster",
            "singularResource": resource.singular,
            "verbs": _verbs(resource.verbs),
        }
        if resource.short_names:
            entry["shortNames"] = list(resource.short_names)
        if resource.categories:
            entry["categories"] = list(resource.categories)
        subresources = []
        for sub in self._subresources(resource):
            same = sub.group == resource.group and sub.version == resource.version
            subresources.append(
                {
                    "subresource": sub.name,
                    "responseKind": {
                        "group": "" if same else sub.group,
                        "version": "" if same else sub.version,
                        "kind": sub.kind,
                    },
                    "verbs": _verbs(sub.verbs),
                }
            )
        if subresources:
            entry["subresources"] = subresources
        return entry

    @functools.cache  # noqa: B019 - two documents (legacy and named groups) per discovery version
    def aggregated(self, legacy: bool, version: str, discovery_group: str) -> tuple[bytes, str]:
        """The aggregated document for `/api` (legacy) or `/apis`, and its ETag."""
        items = []
        for group in self.resources.groups:
            if bool(group.name) == legacy:
                continue
            versions = [
                {
                    "version": v,
                    "resources": [self._aggregated_resource(r) for r in self.resources.in_group_version(group.name, v)],
                    "freshness": "Current",
                }
                for v in group.versions
            ]
            metadata: dict[str, Any] = {"creationTimestamp": None}
            if group.name:
                metadata["name"] = group.name
            items.append({"metadata": metadata, "versions": versions})
        body = encode_json(
            {
                "kind": AGGREGATED_KIND,
                "apiVersion": f"{discovery_group}/{version}",
                "metadata": {},
                "items": items,
            }
        )
        compact = memoryview(body)[:-1]  # the hash is of the document, not of the line it is written on
        return body, '"' + hashlib.sha512(compact).hexdigest()[:32].upper() + '"'
