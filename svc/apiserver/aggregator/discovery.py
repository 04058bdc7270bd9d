"""Discovery merged with the extension servers': `/apis`, `/apis/<group>` and aggregated discovery.

The local documents stay as `Discovery` builds them; the remote groups (from APIServices, ordered by
group priority) are appended. Their resources come from the APIResourceList each extension server
answered the availability check with, converted to the aggregated form, as upstream's aggregated
discovery manager does for servers that only serve the legacy documents; while an APIService is not
available its last document is kept, marked `Stale`. A merged document is built
once per change (local documents or remote ones) and kept as bytes.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from svc.apiserver.aggregator.registry import Registry, RemoteService
from svc.wire.formats import encode_json

Obj = dict[str, Any]


class RemoteDocuments:
    """The APIResourceList of each remote group version that answered; `generation` counts changes."""

    def __init__(self) -> None:
        self.documents: dict[tuple[str, str], Obj] = {}
        self.generation = 0

    def put(self, key: tuple[str, str], document: Obj) -> None:
        if self.documents.get(key) != document:
            self.documents[key] = document
            self.generation += 1


def _group_object(name: str, versions: list[RemoteService]) -> Obj:
    return {
        "name": name,
        "versions": [{"groupVersion": f"{name}/{e.version}", "version": e.version} for e in versions],
        "preferredVersion": {"groupVersion": f"{name}/{versions[0].version}", "version": versions[0].version},
    }


def _aggregated_resources(document: Obj) -> list[Obj]:
    """An APIResourceList's entries in the aggregated form: subresources under their resource."""
    resources: dict[str, Obj] = {}
    subresources: list[Obj] = []
    for entry in document.get("resources") or ():
        name = entry.get("name") or ""
        if "/" in name:
            subresources.append(entry)
            continue
        converted: Obj = {
            "resource": name,
            "responseKind": {
                "group": entry.get("group", ""),
                "version": entry.get("version", ""),
                "kind": entry.get("kind", ""),
            },
            "scope": "Namespaced" if entry.get("namespaced") else "Cluster",
            "singularResource": entry.get("singularName") or (entry.get("kind") or "").lower(),
            "verbs": list(entry.get("verbs") or ()),
        }
        for field, target in (("shortNames", "shortNames"), ("categories", "categories")):
            if entry.get(field):
                converted[target] = list(entry[field])
        resources[name] = converted
    for entry in subresources:
        parent, _, sub = entry["name"].partition("/")
        if parent in resources:
            resources[parent].setdefault("subresources", []).append(
                {
                    "subresource": sub,
                    "responseKind": {
                        "group": entry.get("group", ""),
                        "version": entry.get("version", ""),
                        "kind": entry.get("kind", ""),
                    },
                    "verbs": list(entry.get("verbs") or ()),
                }
            )
    return list(resources.values())


class MergedDiscovery:
    def __init__(self, registry: Registry, documents: RemoteDocuments) -> None:
        self.registry = registry
        self.documents = documents
        self._cache: dict[tuple[Any, ...], Any] = {}

    def _remote_groups(self, local: set[str]) -> dict[str, list[RemoteService]]:
        return {name: versions for name, versions in self.registry.remote_groups().items() if name not in local}

    def _cached(self, key: tuple[Any, ...], build: Any) -> Any:
        full = (*key, self.registry.generation, self.documents.generation)
        if full not in self._cache:
            if len(self._cache) > 16:
                self._cache.clear()
            self._cache[full] = build()
        return self._cache[full]

    def group_list(self, base: bytes) -> bytes:
        """`/apis` with the remote groups appended."""
        if not self.registry.remote:
            return base

        def build() -> bytes:
            document = orjson.loads(base)
            local = {group["name"] for group in document["groups"]}
            for name, versions in self._remote_groups(local).items():
                document["groups"].append(_group_object(name, versions))
            return encode_json(document)

        return self._cached(("list", hash(base)), build)

    def api_group(self, name: str) -> bytes | None:
        """`/apis/<group>` of a remote group."""
        versions = self.registry.remote_groups().get(name)
        if not versions:
            return None
        return encode_json({"kind": "APIGroup", "apiVersion": "v1", **_group_object(name, versions)})

    def aggregated(self, base: bytes, etag: str) -> tuple[bytes, str]:
        """The aggregated `/apis` document with the remote groups' answered versions appended."""
        if not self.registry.remote:
            return base, etag

        def build() -> tuple[bytes, str]:
            document = orjson.loads(base)
            local = {(item.get("metadata") or {}).get("name") for item in document["items"]}
            for name, entries in self._remote_groups({n for n in local if n}).items():
                versions = []
                for entry in entries:
                    fetched = self.documents.documents.get((entry.group, entry.version))
                    if fetched is None:
                        continue
                    versions.append(
                        {
                            "version": entry.version,
                            "resources": _aggregated_resources(fetched),
                            "freshness": "Current" if entry.available else "Stale",
                        }
                    )
                if versions:
                    document["items"].append(
                        {"metadata": {"name": name, "creationTimestamp": None}, "versions": versions}
                    )
            body = encode_json(document)
            compact = memoryview(body)[:-1]
            return body, '"' + hashlib.sha512(compact).hexdigest()[:32].upper() + '"'

        return self._cached(("aggregated", hash(base)), build)
