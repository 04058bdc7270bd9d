"""Where a resource keeps what its `scale` subresource shows: upstream's workloads use fixed fields;
a custom resource names them in its CRD (`specReplicasPath`, `statusReplicasPath`,
`labelSelectorPath`, each a simple JSONPath such as `.spec.replicas`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_MISSING = object()


@dataclass(frozen=True)
class ScalePaths:
    spec_replicas: str
    status_replicas: str
    label_selector: str = ""

    @classmethod
    def from_crd(cls, scale: dict[str, Any]) -> ScalePaths:
        return cls(
            scale.get("specReplicasPath", ""), scale.get("statusReplicasPath", ""), scale.get("labelSelectorPath") or ""
        )


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
