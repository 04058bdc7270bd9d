"""Versions of one stored resource that differ in their fields, converted field by field.

Upstream decodes every request into an internal type and stores one version of each resource; a
read converts the stored object to the version asked for. Here objects stay in their served shape
and the generic store converts only at its boundary with storage: a write in another version is
converted to the storage version before it is written, a stored object read through another
version is converted to it (`present`). Kinds whose versions all share one shape get no
`Conversion`, so their reads and writes pay one `None` check and nothing else.

The families (upstream group and kind of every member) and their storage version:
- HorizontalPodAutoscaler: autoscaling/v2 stored, autoscaling/v1 converted (`autoscaling`).
- Event: core/v1 stored, events.k8s.io/v1 converted (`events`); both share one storage key prefix
  (`Resource.storage_prefix`), so an Event written through either API is read through the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from svc.api.brand import Profile
from svc.api.conversion import events
from svc.api.conversion.autoscaling import HorizontalPodAutoscalers
from svc.api.resources import Resource

Obj = dict[str, Any]
Convert = Callable[[Obj], Obj]
# (upstream group, version, kind) of a served version -> (upstream group, version) of the stored one
_STORAGE: dict[tuple[str, str, str], tuple[str, str]] = {
    ("autoscaling", "v1", "HorizontalPodAutoscaler"): ("autoscaling", "v2"),
    ("autoscaling", "v2", "HorizontalPodAutoscaler"): ("autoscaling", "v2"),
    ("events.k8s.io", "v1", "Event"): ("", "v1"),
    ("", "v1", "Event"): ("", "v1"),
}


def storage_version(resource: Resource) -> tuple[str, str]:
    """The upstream group and version `resource`'s objects are stored in (its own for most kinds);
    discovery's `storageVersionHash` names it, so every member of a family shares one hash."""
    return _STORAGE.get((resource.upstream_group, resource.version, resource.kind)) or (
        resource.upstream_group,
        resource.version,
    )


def _converters(profile: Profile) -> dict[tuple[tuple[str, str], tuple[str, str], str], Convert]:
    """(from (group, version), to (group, version), kind) -> the field conversion."""
    hpa = HorizontalPodAutoscalers(profile.label)
    return {
        (("autoscaling", "v2"), ("autoscaling", "v1"), "HorizontalPodAutoscaler"): hpa.to_v1,
        (("autoscaling", "v1"), ("autoscaling", "v2"), "HorizontalPodAutoscaler"): hpa.to_v2,
        (("", "v1"), ("events.k8s.io", "v1"), "Event"): events.core_to_events,
        (("events.k8s.io", "v1"), ("", "v1"), "Event"): events.events_to_core,
    }


def _api_version(profile: Profile, group: str, version: str) -> str:
    return f"{profile.group(group)}/{version}" if group else version


@dataclass(frozen=True)
class Conversion:
    """How one served version reaches its storage version and back."""

    storage_api_version: str
    to_storage: Convert | None
    """The served shape to the stored one (None when the served version is the storage version)."""
    from_stored: dict[str, Convert]
    """apiVersion found in storage -> the conversion of such an object to the served shape."""

    def stored(self, obj: Obj, kind: str) -> Obj:
        """`obj` (served shape) as it is written to storage."""
        if self.to_storage is not None:
            obj = self.to_storage(obj)
        obj["apiVersion"], obj["kind"] = self.storage_api_version, kind
        return obj


def conversion_for(resource: Resource, profile: Profile) -> Conversion | None:
    """The conversion a store of `resource` needs, or None for a kind with one shape."""
    served = (resource.upstream_group, resource.version)
    storage = _STORAGE.get((*served, resource.kind))
    if storage is None:
        return None
    converters = _converters(profile)
    from_stored = {
        _api_version(profile, *source): convert
        for (source, target, kind), convert in converters.items()
        if target == served and kind == resource.kind
    }
    return Conversion(
        storage_api_version=_api_version(profile, *storage),
        to_storage=converters.get((served, storage, resource.kind)),
        from_stored=from_stored,
    )
