"""Object schemas of the built-in types, read from the `kubernetes-validate` package.

The package ships the upstream release-1.36 definitions as JSON Schema (one `_definitions.json`
with every type, `$ref`s between them, and the upstream `x-kubernetes-*` extensions that carry patch
strategies, list and map types). Field validation, strategic merge, server-side apply and the
OpenAPI documents all walk the same definitions through `Schema`, a thin view that resolves `$ref`s
lazily, so nothing is copied or pre-expanded at start-up.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from importlib import resources
from typing import Any

import orjson

SCHEMA_VERSION = "v1.36.0-local"
_REF_PREFIX = "#/$defs/"


@functools.cache
def definitions() -> dict[str, dict[str, Any]]:
    """All upstream definitions by their OpenAPI name (e.g. `io.k8s.api.apps.v1.Deployment`)."""
    root = resources.files("kubernetes_validate") / "kubernetes-json-schema" / SCHEMA_VERSION
    return orjson.loads((root / "_definitions.json").read_bytes())["$defs"]


class Schema:
    """A view of one schema node; `$ref`, `allOf` of one item and nullable types are resolved."""

    def __init__(self, raw: dict[str, Any], name: str = "") -> None:
        # A property that refers to a definition may carry its own patch and list/map rules
        # (`x-kubernetes-*` beside the `$ref`); those win over the definition's.
        self.extensions = {key: value for key, value in raw.items() if key.startswith("x-kubernetes-")}
        while True:
            ref = raw.get("$ref")
            if ref is None and len(raw.get("allOf", ())) == 1:
                ref = raw["allOf"][0].get("$ref")
            if ref is None:
                break
            name = ref.removeprefix(_REF_PREFIX)
            raw = definitions()[name]
        self.raw = raw
        self.name = name

    @classmethod
    def named(cls, name: str) -> Schema | None:
        raw = definitions().get(name)
        return None if raw is None else cls(raw, name)

    def __repr__(self) -> str:
        return f"Schema({self.name or self.type})"

    @functools.cached_property
    def types(self) -> frozenset[str]:
        """The JSON types a value may have here; empty means any value."""
        alternatives = self.raw.get("oneOf") or self.raw.get("anyOf")
        if alternatives:
            found: set[str] = set()
            for alternative in alternatives:
                found |= Schema(alternative).types
            return frozenset(found)
        declared = self.raw.get("type")
        if declared is None:
            return frozenset()
        if isinstance(declared, str):
            declared = [declared]
        return frozenset(t for t in declared if t != "null")

    @property
    def type(self) -> str:
        """One of object, map, array, string, integer, number, boolean, scalar (a union) or any."""
        types = self.types
        if not types:
            return "any"
        if len(types) > 1:
            return "scalar"
        (only,) = types
        if only == "object":
            if "properties" in self.raw:
                return "object"
            if isinstance(self.raw.get("additionalProperties"), dict):
                return "map"
            return "any"
        return only

    @functools.cached_property
    def properties(self) -> dict[str, Schema]:
        return {key: Schema(value) for key, value in self.raw.get("properties", {}).items()}

    def field(self, name: str) -> Schema | None:
        return self.properties.get(name)

    @functools.cached_property
    def items(self) -> Schema | None:
        items = self.raw.get("items")
        return Schema(items) if isinstance(items, dict) else None

    @functools.cached_property
    def values(self) -> Schema | None:
        """Schema of the values of a map."""
        values = self.raw.get("additionalProperties")
        return Schema(values) if isinstance(values, dict) else None

    def _extension(self, key: str, default: Any = None) -> Any:
        return self.extensions.get(key, self.raw.get(key, default))

    @property
    def required(self) -> list[str]:
        return self.raw.get("required", [])

    @property
    def patch_strategy(self) -> str:
        return self._extension("x-kubernetes-patch-strategy", "")

    @property
    def patch_merge_key(self) -> str:
        return self._extension("x-kubernetes-patch-merge-key", "")

    @property
    def list_type(self) -> str:
        return self._extension("x-kubernetes-list-type", "")

    @property
    def list_map_keys(self) -> list[str]:
        return self._extension("x-kubernetes-list-map-keys", [])

    @property
    def map_type(self) -> str:
        return self._extension("x-kubernetes-map-type", "")

    @property
    def preserves_unknown_fields(self) -> bool:
        return bool(self._extension("x-kubernetes-preserve-unknown-fields"))

    @property
    def group_version_kinds(self) -> list[dict[str, str]]:
        return self.raw.get("x-kubernetes-group-version-kind", [])

    @property
    def description(self) -> str:
        return self.raw.get("description", "")


@functools.cache
def schema_for(definition: str) -> Schema | None:
    """The schema of a definition name, cached (None when the name is empty or unknown)."""
    return Schema.named(definition) if definition else None


_added: set[str] = set()
"""The names `put_definitions` added: every other definition is a built-in one."""


def is_built_in(name: str) -> bool:
    return name in definitions() and name not in _added


def put_definitions(found: dict[str, dict[str, Any]], gone: Iterable[str] = ()) -> None:
    """Add, replace or remove definitions of served custom resources (their CRDs changed): every
    reader of definitions (ownership, OpenAPI, explain) then sees them as it sees built-in ones.
    Built-in definitions are never replaced or removed."""
    every = definitions()
    for name in gone:
        if name in _added:
            every.pop(name, None)
            _added.discard(name)
    for name, schema in found.items():
        if not is_built_in(name):
            every[name] = schema
            _added.add(name)
    schema_for.cache_clear()
