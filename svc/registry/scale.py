"""The `scale` subresource: an `autoscaling/v1 Scale` view of a workload's replica count."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from svc.api.resources import Resource
from svc.api.scale_paths import ScalePaths, read_path, replicas_by_version, write_path
from svc.machinery import status
from svc.machinery.apply import ManagedFieldsError, scale_fields
from svc.machinery.field_errors import aggregate_message, invalid
from svc.machinery.labels import SelectorError, label_selector_from_dict
from svc.registry.admission import Admission, UserInfo
from svc.registry.options import WriteOptions
from svc.registry.store import GenericStore

Obj = dict[str, Any]


def _selector_text(selector: Any) -> str:
    if not isinstance(selector, dict):
        return ""
    if "matchLabels" in selector or "matchExpressions" in selector:
        try:
            return str(label_selector_from_dict(selector))
        except SelectorError:
            return ""
    return ",".join(f"{key}={value}" for key, value in sorted(selector.items()))


def _custom_counts(obj: Obj, paths: ScalePaths) -> tuple[Any, Any, str]:
    """Replicas and selector where a CRD's scale subresource names them (absent: zero, no selector)."""
    selector = read_path(obj, paths.label_selector) if paths.label_selector else None
    return (
        read_path(obj, paths.spec_replicas) or 0,
        read_path(obj, paths.status_replicas) or 0,
        selector if isinstance(selector, str) else "",
    )


def scale_of(resource: Resource, obj: Obj, paths: ScalePaths | None = None) -> Obj:
    metadata = obj["metadata"]
    spec = obj.get("spec") or {}
    state = obj.get("status") or {}
    if paths is None:
        counts = (spec.get("replicas", 0), state.get("replicas", 0), _selector_text(spec.get("selector")))
    else:
        counts = _custom_counts(obj, paths)
    sub = resource.subresources["scale"]
    scale_metadata = {
        key: metadata[key]
        for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
        if key in metadata
    }
    result: Obj = {
        "kind": "Scale",
        "apiVersion": f"{sub.group}/{sub.version}" if sub.group else sub.version,
        "metadata": scale_metadata,
        # `spec.replicas` is `omitempty` (left out at 0); `status.replicas` is always written.
        "spec": {"replicas": counts[0]} if counts[0] else {},
        "status": {"replicas": counts[1]},
    }
    if counts[2]:
        result["status"]["selector"] = counts[2]
    return result


async def update_scale(
    store: GenericStore,
    namespace: str,
    name: str,
    rescale: Callable[[Obj], Obj],
    *,
    admission: Admission,
    user: UserInfo,
    options: WriteOptions,
) -> Obj:
    """Write the replica count of the Scale `rescale` makes of the current one (upstream's
    `scaleUpdatedObjectInfo`). The current Scale carries the parent's owners of the replica count as its
    managed fields, so `rescale` can track the write on the Scale; its owners of `spec.replicas` then
    become the parent's owners of the replica count."""
    resource, paths = store.resource, store.strategy.scale_paths
    replicas_paths = scale_fields.replicas_paths(replicas_by_version(resource, paths))

    async def set_replicas(current: Obj | None) -> Obj:
        if current is None:
            raise status.not_found(resource.group_resource, name)
        parent_entries = current["metadata"].get("managedFields")
        old_scale = scale_of(resource, current, paths)
        try:
            scale_entries = scale_fields.to_subresource(parent_entries, replicas_paths)
        except ManagedFieldsError as error:
            raise status.internal_error(str(error)) from None
        if scale_entries:
            old_scale["metadata"]["managedFields"] = scale_entries
        body = rescale(old_scale)
        replicas = (body.get("spec") or {}).get("replicas", 0)
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            errors = [invalid("spec.replicas", replicas, "must be greater than or equal to 0")]
            raise status.invalid("Scale.autoscaling", name, errors, aggregate_message(errors))
        wanted_version = (body.get("metadata") or {}).get("resourceVersion") or ""
        if wanted_version and wanted_version != current["metadata"]["resourceVersion"]:
            raise status.stale_conflict(resource.group_resource, name)
        # A copy: the strategy compares it with `current` to decide whether the generation moves.
        scaled = store.objects.codec.copy(current)
        if paths is None:
            scaled.setdefault("spec", {})["replicas"] = replicas
        else:
            write_path(scaled, paths.spec_replicas, replicas)
        new_entries = (body.get("metadata") or {}).get("managedFields")
        try:
            parent = scale_fields.to_parent(parent_entries, new_entries, replicas_paths, resource.api_version)
        except ManagedFieldsError as error:
            raise status.internal_error(str(error)) from None
        if parent:
            scaled["metadata"]["managedFields"] = parent
        else:
            scaled["metadata"].pop("managedFields", None)
        return scaled

    stored, _ = await store.update(
        namespace,
        name,
        set_replicas,
        admission=admission,
        user=user,
        options=dataclasses.replace(options, subresource=""),
        allow_create=False,
    )
    return stored
