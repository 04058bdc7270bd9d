"""Where a resource keeps what its `scale` subresource shows: upstream's workloads use fixed fields;
a custom resource names them in its CRD (`specReplicasPath`, `statusReplicasPath`,
`labelSelectorPath`, each a simple JSONPath such as `.spec.replicas`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from svc.api.resources import Resource

_MISSING = object()

# The versions whose replica count upstream's workloads keep at `.spec.replicas` (`ReplicasPathMappings`):
# the managed fields of any other version are dropped by a write through `/scale`.
_WORKLOAD_VERSIONS: Final[dict[tuple[str, str], tuple[str, ...]]] = {
    ("apps", "Deployment"): ("v1beta1", "v1beta2", "v1"),
    ("apps", "ReplicaSet"): ("v1beta2", "v1"),
    ("apps", "StatefulSet"): ("v1beta1", "v1beta2", "v1"),
    ("", "ReplicationController"): ("v1",),
}


@dataclass(frozen=True)
class ScalePaths:
    spec_replicas: str
    status_replicas: str
    label_selector: str = ""
    by_version: tuple[tuple[str, str | None], ...] = ()
    """A CRD's `specReplicasPath` per API version of its kind (None: that version has no scale)."""

    @classmethod
    def from_crd(cls, scale: dict[str, Any], by_version: tuple[tuple[str, str | None], ...] = ()) -> ScalePaths:
        return cls(
            scale.get("specReplicasPath", ""),
            scale.get("statusReplicasPath", ""),
            scale.get("labelSelectorPath") or "",
            by_version,
        )


def replicas_by_version(resource: Resource, paths: ScalePaths | None) -> dict[str, str | None]:
    """Where each API version of the resource's kind keeps the replica count the scale subresource sets."""
    if paths is not None:
        return dict(paths.by_version) or {resource.api_version: paths.spec_replicas}
    versions = _WORKLOAD_VERSIONS.get((resource.upstream_group, resource.kind), (resource.version,))
    return {(f"{resource.group}/{version}" if resource.group else version): ".spec.replicas" for version in versions}


def _fields(path: str) -> list[str]:
    return [part for part in path.strip().lstrip(".").split(".") if part]


def read_path(obj: Any, path: str) -> Any:
    """The value at a simple JSONPath, or None when any step is missing."""
    value = obj
    for name in _fields(path):
        if not isinstance(value, dict):
            return None
        value = value.get(name, _MISSING)
        if value is _MISSING:
            return None
    return value


def write_path(obj: dict[str, Any], path: str, value: Any) -> None:
    """Set the value at a simple JSONPath, creating the objects on the way."""
    names = _fields(path)
    target = obj
    for name in names[:-1]:
        child = target.get(name)
        if not isinstance(child, dict):
            child = target[name] = {}
        target = child
    target[names[-1]] = value
