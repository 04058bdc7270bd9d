"""What a CustomResourceDefinition serves: one `Resource` per served version, with its subresources
and the OpenAPI definition names its objects are described by.

Upstream names a custom resource's OpenAPI definition after the reversed group, the version and the
kind (`com.example.stable.v1.CronTab`); the resource table's `definition` field carries that name so
field ownership, OpenAPI and explain find the schema as they find a built-in one.
"""

from __future__ import annotations

from typing import Any

from svc.api.resources import Resource, Subresource, version_priority

Obj = dict[str, Any]

_VERBS = frozenset({"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"})
_SUBRESOURCE_VERBS = ("get", "patch", "update")


def definition_name(group: str, version: str, kind: str) -> str:
    """Upstream's OpenAPI name of a custom resource kind: the group reversed, then version and kind."""
    return ".".join([*reversed(group.split(".")), version, kind])


def accepted_names(crd: Obj) -> Obj:
    return (crd.get("status") or {}).get("acceptedNames") or {}


def served_versions(crd: Obj) -> list[Obj]:
    """The served versions, highest priority first (kube-like version order, then by name)."""
    versions = [v for v in (crd.get("spec") or {}).get("versions") or [] if v.get("served")]
    return sorted(versions, key=lambda v: (version_priority(v.get("name", "")), v.get("name", "")))


def storage_version(crd: Obj) -> str:
    for version in (crd.get("spec") or {}).get("versions") or []:
        if version.get("storage"):
            return version.get("name", "")
    return ""


def version_entry(crd: Obj, version: str) -> Obj:
    for entry in (crd.get("spec") or {}).get("versions") or []:
        if entry.get("name") == version:
            return entry
    return {}


def resources_of(crd: Obj) -> list[Resource]:
    """The resources an Established CRD serves, named by its accepted names (what discovery shows)."""
    spec = crd.get("spec") or {}
    names = accepted_names(crd)
    group = spec.get("group", "")
    kind = names.get("kind", "")
    found = []
    for entry in served_versions(crd):
        version = entry["name"]
        subresources: dict[str, Subresource] = {}
        declared = entry.get("subresources") or {}
        if "status" in declared:
            subresources["status"] = Subresource("status", group, version, kind, _SUBRESOURCE_VERBS)
        if "scale" in declared:
            subresources["scale"] = Subresource(
                "scale", "autoscaling", "v1", "Scale", _SUBRESOURCE_VERBS, "io.k8s.api.autoscaling.v1.Scale"
            )
        found.append(
            Resource(
                group=group,
                upstream_group=group,
                version=version,
                name=names.get("plural", ""),
                kind=kind,
                singular=names.get("singular", ""),
                namespaced=spec.get("scope") == "Namespaced",
                verbs=_VERBS,
                short_names=tuple(names.get("shortNames") or ()),
                categories=tuple(names.get("categories") or ()),
                definition=definition_name(group, version, kind),
                delete_returns_object=True,
                subresources=subresources,
                custom=True,
            )
        )
    return found
