"""The schema definitions of a CRD's served versions, in the form of the built-in ones
(`kubernetes-validate`'s JSON Schema with `$ref`s to `#/$defs/`), so OpenAPI, `kubectl explain`,
client-side validation and server-side apply read custom resources as they read built-in kinds.

As upstream's published CR schemas: `apiVersion`, `kind` and `metadata` are the standard ones
(ObjectMeta by reference), the list kind holds the items by reference, and a version without a
schema preserves every field.
"""

from __future__ import annotations

import copy
from typing import Any

from svc.apiserver.apiextensions.served import definition_name, served_versions

Obj = dict[str, Any]

_META = "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1."
_API_VERSION = {
    "description": "APIVersion defines the versioned schema of this representation of an object. Servers should "
    "convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
    "type": "string",
}
_KIND = {
    "description": "Kind is a string value representing the REST resource this object represents. Servers may "
    "infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
    "type": "string",
}


def _object_schema(entry: Obj, gvk: Obj) -> Obj:
    raw = ((entry.get("schema") or {}).get("openAPIV3Schema")) or {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    schema = copy.deepcopy(raw)
    properties = schema.setdefault("properties", {})
    properties["apiVersion"] = dict(_API_VERSION)
    properties["kind"] = dict(_KIND)
    properties["metadata"] = {
        "$ref": _META + "ObjectMeta",
        "description": "Standard object's metadata. More info: "
        "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    }
    schema.setdefault("type", "object")
    schema["x-kubernetes-group-version-kind"] = [gvk]
    return schema


def _list_schema(name: str, gvk: Obj, kind: str, plural: str) -> Obj:
    return {
        "description": f"{gvk['kind']} is a list of {kind}",
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": dict(_API_VERSION),
            "items": {
                "description": f"List of {plural}. More info: "
                "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
                "type": "array",
                "items": {"$ref": "#/$defs/" + name},
            },
            "kind": dict(_KIND),
            "metadata": {"$ref": _META + "ListMeta", "description": "Standard list metadata."},
        },
        "x-kubernetes-group-version-kind": [gvk],
    }


def definitions_of(crd: Obj) -> dict[str, Obj]:
    """Definition name -> schema for every served version of an Established CRD, and its list kinds."""
    spec = crd.get("spec") or {}
    names = (crd.get("status") or {}).get("acceptedNames") or {}
    group, kind = spec.get("group", ""), names.get("kind", "")
    list_kind = names.get("listKind") or kind + "List"
    found: dict[str, Obj] = {}
    for entry in served_versions(crd):
        version = entry["name"]
        name = definition_name(group, version, kind)
        found[name] = _object_schema(entry, {"group": group, "version": version, "kind": kind})
        found[name + "List"] = _list_schema(
            name, {"group": group, "version": version, "kind": list_kind}, kind, names.get("plural", "")
        )
    return found
