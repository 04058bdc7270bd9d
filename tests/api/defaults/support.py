"""Helpers for the defaulting tests: defaulting a copy, and trimming upstream dumps to what defaulting
decides (dropping fields that allocation, admission, the scheduler or a strategy set upstream)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from svc.api.brand import KUBERNETES, Profile
from svc.api.defaults import apply_defaults


def defaulted(group: str, kind: str, obj: dict[str, Any], profile: Profile = KUBERNETES) -> dict[str, Any]:
    result = copy.deepcopy(obj)
    apply_defaults(group, kind, result, profile=profile)
    return result


def live(name: str) -> Any:
    """An object read back from a real cluster, kept under `live/` with its provenance in a comment."""
    return yaml.safe_load((Path(__file__).parent / "live" / name).read_text())


def last_applied(dump: dict[str, Any]) -> dict[str, Any]:
    """The object a client sent, as `kubectl apply` recorded it on the live object."""
    return json.loads(dump["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])


def drop(obj: dict[str, Any], *paths: str) -> dict[str, Any]:
    """A copy of `obj` without the fields at the dotted paths (a number selects a list item)."""
    result = copy.deepcopy(obj)
    for path in paths:
        *parents, last = path.split(".")
        node: Any = result
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            del node[int(last)]
        else:
            del node[last]
    return result
