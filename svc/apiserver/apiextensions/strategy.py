"""The strategy of a custom resource: the generic one, configured from its CRD's version.

Upstream's `customResourceStrategy`: the generation moves on any change outside metadata (and outside
status when status is a subresource), an update must name the resourceVersion it replaces, a status
subresource splits the writes, the scale subresource reads and writes the CRD's replica paths, and
`selectableFields` become field selector labels. Pruning, defaulting and validation against the
version's schema come from `CustomResourceSchema` (`svc/api/crd/`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.api.brand import Profile
from svc.api.resources import Resource
from svc.api.scale_paths import ScalePaths, read_path
from svc.api.strategy import Strategy, default_field_labels, spec_changed, status_only
from svc.apiserver.apiextensions.custom_schema import SchemaRules
from svc.apiserver.apiextensions.served import version_entry
from svc.machinery import status
from svc.machinery.field_errors import FieldError, aggregate_message

Obj = dict[str, Any]


def _label_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or isinstance(value, (dict, list)):
        return ""
    return str(value)


def _field_labels(paths: list[str]) -> Callable[[Obj], dict[str, str]]:
    def field_labels(obj: Obj) -> dict[str, str]:
        labels = default_field_labels(obj)
        for path in paths:
            labels[path.lstrip(".")] = _label_value(read_path(obj, path))
        return labels

    return field_labels


def _replicas_by_version(crd: Obj) -> tuple[tuple[str, str | None], ...]:
    """The `specReplicasPath` of every version of the CRD (upstream's replicas path mappings)."""
    spec = crd.get("spec") or {}
    group = spec.get("group", "")
    found = []
    for entry in spec.get("versions") or []:
        scale = (entry.get("subresources") or {}).get("scale")
        path = scale.get("specReplicasPath") if isinstance(scale, dict) else None
        found.append((f"{group}/{entry.get('name', '')}", path))
    return tuple(found)


def custom_strategy(crd: Obj, resource: Resource, profile: Profile, rules: SchemaRules) -> Strategy:
    entry = version_entry(crd, resource.version)
    has_status = "status" in resource.subresources
    selectable = [item.get("jsonPath", "") for item in entry.get("selectableFields") or []]
    scale = (entry.get("subresources") or {}).get("scale")

    def invalid(obj: Obj, errors: list[FieldError]) -> status.StatusError:
        name = (obj.get("metadata") or {}).get("name", "")
        return status.invalid(resource.group_kind, name, errors, aggregate_message(errors))

    def prepare_for_create(obj: Obj) -> None:
        if has_status:
            obj.pop("status", None)

    def prepare_for_update(new: Obj, old: Obj) -> None:
        if has_status:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)
        elif new.get("status") != old.get("status") and not spec_changed(new, old):
            new["metadata"]["generation"] = old["metadata"].get("generation", 0) + 1

    def update_status(new: Obj, old: Obj) -> Obj:
        result = status_only(new, old)
        rules.default(result)
        errors = rules.validate_status(result, old)
        if errors:
            raise invalid(result, errors)
        return result

    return Strategy(
        resource=resource,
        profile=profile,
        allow_unconditional_update=False,
        tracks_generation=True,
        prepare_for_create=prepare_for_create,
        prepare_for_update=prepare_for_update,
        validate=lambda obj: rules.validate(obj, None),
        validate_update=lambda new, old: rules.validate(new, old),
        normalize=rules.default,
        prune=rules.prune,
        extra_subresource_updates={"status": update_status} if has_status else {},
        field_labels=_field_labels(selectable),
        field_label_names=frozenset({"metadata.name", "metadata.namespace", *(p.lstrip(".") for p in selectable)}),
        scale_paths=ScalePaths.from_crd(scale, _replicas_by_version(crd)) if isinstance(scale, dict) else None,
    )
