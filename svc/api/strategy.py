"""Per-type rules as one dataclass of functions.

Upstream gives each type a strategy (`PrepareForCreate`, `Validate`, `AllowCreateOnUpdate`, ...). Here
a `Strategy` is a frozen dataclass whose defaults are the generic behaviour; a kind with special
rules gets its own module under `svc/api/kinds/` that returns `dataclasses.replace(base, ...)`.
Nothing here parses HTTP or touches storage.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from svc.api.brand import Profile
from svc.api.defaults import apply_defaults
from svc.api.omit_empty import member_pruner
from svc.api.resources import Resource
from svc.api.scale_paths import ScalePaths
from svc.api.status_metadata import Kept, kept_for, status_metadata
from svc.machinery.field_errors import FieldError
from svc.machinery.validation import name_is_dns_subdomain

Obj = dict[str, Any]
NameValidator = Callable[[str, bool], list[str]]

# Top-level fields that never count as a change of the desired state.
_NON_SPEC_FIELDS = frozenset({"apiVersion", "kind", "metadata", "status"})


def _no_errors(*_: Obj) -> list[FieldError]:
    return []


def _nothing(*_: Obj) -> None:
    return None


def default_field_labels(obj: Obj) -> dict[str, str]:
    metadata = obj.get("metadata") or {}
    labels = {"metadata.name": metadata.get("name", "")}
    if "namespace" in metadata:
        labels["metadata.namespace"] = metadata.get("namespace", "")
    return labels


def status_only(new: Obj, old: Obj, kept: Kept = None) -> Obj:
    """The object as stored, with the status of `new` and the metadata the kind's status strategy
    takes from it (`kept`: see `svc.api.status_metadata`; None: the stored metadata)."""
    result = dict(old)
    result["metadata"] = status_metadata(new["metadata"], old["metadata"], kept)
    if "status" in new:
        result["status"] = new["status"]
    else:
        result.pop("status", None)
    return result


def spec_changed(new: Obj, old: Obj) -> bool:
    keys = (set(new) | set(old)) - _NON_SPEC_FIELDS
    return any(new.get(key) != old.get(key) for key in keys)


@dataclass(frozen=True)
class Strategy:
    resource: Resource
    profile: Profile
    name_validator: NameValidator = name_is_dns_subdomain
    allow_create_on_update: bool = False
    allow_unconditional_update: bool = True
    tracks_generation: bool = False
    prepare_for_create: Callable[[Obj], None] = _nothing
    prepare_for_update: Callable[[Obj, Obj], None] = _nothing
    validate: Callable[[Obj], list[FieldError]] = _no_errors
    validate_update: Callable[[Obj, Obj], list[FieldError]] = _no_errors
    canonicalize: Callable[[Obj], None] = _nothing
    keeps_terminating: Callable[[Obj], bool] = lambda obj: False
    deletion_grace: Callable[[Obj, int | None], int] | None = None
    """Kinds deleted gracefully (upstream's `RESTGracefulDeleteStrategy`): the grace period, in seconds, of
    a delete of the object, given the one the request asks for (None: not given, never negative)."""
    normalize: Callable[[Obj], None] = _nothing
    extra_subresource_updates: Mapping[str, Callable[[Obj, Obj], Obj]] = field(default_factory=dict)
    subresource_validators: Mapping[str, Callable[[Obj, Obj], list[FieldError]]] = field(default_factory=dict)
    """Per subresource, upstream's update validation of that subresource's strategy (`ValidateXStatusUpdate`
    for `status`): run on the merged object, after the generic metadata rules."""
    field_labels: Callable[[Obj], dict[str, str]] = default_field_labels
    field_label_names: frozenset[str] = frozenset({"metadata.name", "metadata.namespace"})
    prune: Callable[[Obj], list[str]] | None = None
    """Custom resources only: drop the fields their schema does not know and name them (the unknown
    fields field validation reports); built-in kinds are checked against their Go types instead."""
    scale_paths: ScalePaths | None = None
    """Where the scale subresource reads and writes; None: a workload's `spec.replicas`."""
    nil_distinct_maps: tuple[str, ...] = ()
    """Top-level maps an update check compares as Go's `reflect.DeepEqual` does, where a map sent as `{}`
    differs from one never sent (ConfigMap and Secret data under `immutable`): the served prune leaves
    them sent empty for the checks, and the stored object drops them still."""

    @property
    def has_status(self) -> bool:
        return "status" in self.resource.subresources

    @property
    def subresource_updates(self) -> dict[str, Callable[[Obj, Obj], Obj]]:
        """Writes through a subresource change only that subresource's part of the object."""
        updates: dict[str, Callable[[Obj, Obj], Obj]] = {}
        if self.has_status:
            kept = kept_for(self.resource.upstream_group, self.resource.kind)
            updates["status"] = functools.partial(status_only, kept=kept)
        updates.update(self.extra_subresource_updates)
        return updates

    def default(self, obj: Obj) -> None:
        """What upstream does while decoding a request: the kind's conversion quirks, then defaults;
        and the status zero values Go writes back (a status written through its subresource)."""
        self.normalize(obj)
        apply_defaults(self.resource.upstream_group, self.resource.kind, obj, profile=self.profile)
        self.fill_status(obj)

    def fill_status(self, obj: Obj) -> None:
        """A status as its Go type holds it (`status.replicas: 0`, `loadBalancer: {}`), so admission and
        the checks see the zeros the answer will show; a status not sent is left to the write."""
        status = obj.get("status")
        if type(status) is dict:
            prune = member_pruner(self.resource.upstream_group, self.resource.version, self.resource.kind, "status")
            if prune is not None:
                prune(status)

    def create(self, obj: Obj) -> None:
        """Generic create preparation, then the type's own; the emptied status gets Go's zero values."""
        if self.has_status:
            obj["status"] = {}
        if self.tracks_generation:
            obj["metadata"]["generation"] = 1
        else:
            obj["metadata"].pop("generation", None)
        self.prepare_for_create(obj)
        self.fill_status(obj)

    def update(self, new: Obj, old: Obj) -> None:
        """Generic update preparation (status/spec split, generation), then the type's own."""
        if self.has_status:
            new["status"] = old.get("status", {})
        old_generation = old["metadata"].get("generation")
        if old_generation is not None:
            new["metadata"]["generation"] = old_generation
            if self.tracks_generation and spec_changed(new, old):
                new["metadata"]["generation"] = old_generation + 1
        else:
            new["metadata"].pop("generation", None)
        self.prepare_for_update(new, old)
