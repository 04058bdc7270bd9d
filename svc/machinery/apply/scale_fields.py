"""Ownership of the replica count across the `scale` subresource (upstream's managedfields `ScaleHandler`).

A write through `/scale` is tracked on the `autoscaling/v1 Scale` object, whose managed fields are made
from the parent's: every manager owning the parent's replicas path owns the Scale's `spec.replicas`.
After the write, the Scale's owners of `spec.replicas` own the parent's replicas path again (under the
subresource they wrote through, in the parent's API version) and the parent's other owners of it lose it.
Entries of an API version the parent does not know are dropped; managers of the Scale that do not own
`spec.replicas` are forgotten. As upstream does, an entry coming from the Scale keeps the time its key
had on the parent (none for a new one, nor for an updater, whose key names the Scale's version).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from svc.machinery.apply import entries
from svc.machinery.apply.entries import Managed, Owned
from svc.machinery.apply.fieldpath import FieldSet, Path, make_path

SCALE_API_VERSION = "autoscaling/v1"
REPLICAS_IN_SCALE = make_path("spec", "replicas")

ReplicasPaths = Mapping[str, Path | None]
"""The parent's replicas path per API version; None for a version without a scale subresource (kept)."""


def to_subresource(parent_entries: Any, paths: ReplicasPaths) -> list[dict[str, Any]]:
    """The Scale's managedFields: the parent's owners of its replicas path, owning `spec.replicas`."""
    parent = entries.decode(parent_entries)
    scale = Managed()
    for key, owned in parent.sets.items():
        path = paths.get(owned.api_version)
        if path is not None and path in owned.fields:
            scale.sets[key] = Owned(FieldSet.of(REPLICAS_IN_SCALE), SCALE_API_VERSION, owned.applied)
            if key in parent.times:
                scale.times[key] = parent.times[key]
    return entries.encode(scale)


def to_parent(parent_entries: Any, scale_entries: Any, paths: ReplicasPaths, api_version: str) -> list[dict[str, Any]]:
    """The parent's managedFields after a write through `/scale` at `api_version` left `scale_entries`."""
    parent = entries.decode(parent_entries)
    scale_sets = dict(entries.decode(scale_entries).sets)
    result = Managed()

    def keep(key: entries.ManagerKey, owned: Owned) -> None:
        result.sets[key] = owned
        if key in parent.times:
            result.times[key] = parent.times[key]

    for key, owned in parent.sets.items():
        if owned.api_version not in paths:
            continue
        path = paths[owned.api_version]
        if path is None or path not in owned.fields:
            keep(key, owned)
        elif key in scale_sets:
            keep(key, owned)
            del scale_sets[key]
        elif remaining := owned.fields - FieldSet.of(path):
            keep(key, Owned(remaining, owned.api_version, owned.applied))
    replicas = paths.get(api_version)
    for key, owned in scale_sets.items():
        if replicas is not None and REPLICAS_IN_SCALE in owned.fields:
            keep(key, Owned(FieldSet.of(replicas), api_version, owned.applied))
    return entries.encode(result)


def replicas_paths(versions: Mapping[str, str | None]) -> dict[str, Path | None]:
    """Paths from dotted JSON paths (`.spec.replicas`) per API version."""
    return {
        version: None if dotted is None else make_path(*[part for part in dotted.split(".") if part])
        for version, dotted in versions.items()
    }
