"""The fields a typed Go object always carries, filled into plain dicts before two objects are compared.

Upstream compares objects after a round trip through Go structs, where a non-pointer struct field is
always present (as `{}`) and a field without `omitempty` is always present (as its zero value). Which
fields those are decides whether an intermediate node counts as "added" (and so appears as `.: {}` in
managedFields): a created Deployment's entry has `f:spec` without `.`, while `f:ports` gets one. The
OpenAPI schemas do not say which Go fields are pointers, so this uses what they do say plus
convention: required fields are never `omitempty`; `metadata`, `spec` and `status` structs, and the few
listed below, are non-pointer structs in every built-in type. A list or map without `omitempty` (a
Role's `rules`) is always present too, as null when nil; which ones comes from upstream's struct tags
(`svc.api.omit_empty.null_fields`), so an absent `rules` compares equal to a nil one and `rules: []`
does not. Objects without a schema (custom resources) have no such fields, as upstream's unstructured
objects do not.
"""

from __future__ import annotations

from typing import Any

from svc.api.omit_empty import null_fields
from svc.machinery.apply.shapes import DEDUCED, Kind, Scalar, Shape

_NON_POINTER_NAMES = frozenset({"metadata", "spec", "status"})
_NON_POINTER_FIELDS = frozenset(
    {
        ("io.k8s.api.apps.v1.DeploymentSpec", "strategy"),
        ("io.k8s.api.apps.v1.DaemonSetSpec", "updateStrategy"),
        ("io.k8s.api.apps.v1.StatefulSetSpec", "updateStrategy"),
        ("io.k8s.api.apps.v1.ReplicaSetSpec", "template"),
        ("io.k8s.api.core.v1.Container", "resources"),
        ("io.k8s.api.core.v1.EphemeralContainer", "resources"),
        ("io.k8s.api.core.v1.PersistentVolumeClaimSpec", "resources"),
        ("io.k8s.api.core.v1.ServiceStatus", "loadBalancer"),
    }
)
_SCALAR_ZEROS = {Scalar.STRING: "", Scalar.NUMERIC: 0, Scalar.BOOLEAN: False}
# Shapes are made once per schema node and kept (see `shape_of`), so they key this table directly.
_ZEROS: dict[Shape, tuple[str, ...]] = {}


def with_zero_values(value: Any, shape: Shape) -> Any:
    """A copy of `value` with every always-present Go field that it lacks set to its zero value."""
    kind = shape.resolve(value)
    if kind is Kind.MAP and isinstance(value, dict):
        resolved = shape.as_resolved(kind)
        out = {key: with_zero_values(item, resolved.field(key) or DEDUCED) for key, item in value.items()}
        for name in _zero_fields(resolved):
            if name not in out:
                out[name] = _zero(resolved.field(name) or DEDUCED)
        return out
    if kind is Kind.LIST and isinstance(value, list):
        element = shape.as_resolved(kind).element
        return [with_zero_values(item, element) for item in value]
    return value


def with_zero_fields(value: dict[str, Any], shape: Shape) -> dict[str, Any]:
    """`value` (a map of the resolved map shape `shape`) with its own missing always-present fields
    added, each as its full zero value; entries are not filled. `value` itself when nothing is missing,
    so a walk can fill each map it visits instead of copying a whole object first."""
    names = _ZEROS.get(shape)
    if names is None:
        names = _zero_fields(shape)
    for name in names:
        if name not in value:
            break
    else:
        return value
    return {**value, **{name: _zero(shape.field(name) or DEDUCED) for name in names if name not in value}}


def _zero(shape: Shape) -> Any:
    """Go's zero value as it appears in JSON: `{}` for a struct, "" / 0 / false for scalars, else null."""
    if _is_struct(shape):
        return with_zero_values({}, shape)
    if shape.kind is Kind.SCALAR:
        return _SCALAR_ZEROS.get(shape.scalar)
    return None


def _is_struct(shape: Shape | None) -> bool:
    return shape is not None and shape.kind is Kind.MAP and shape.declared != {}


def _zero_fields(shape: Shape) -> tuple[str, ...]:
    """The fields a Go value of this struct type always has."""
    cached = _ZEROS.get(shape)
    if cached is not None:
        return cached
    found = []
    schema = shape.schema
    if schema is not None:
        required = set(schema.required)
        for name in shape.declared:
            conventional = name in _NON_POINTER_NAMES or (schema.name, name) in _NON_POINTER_FIELDS
            if name in required or (conventional and _is_struct(shape.field(name))):
                found.append(name)
        found.extend(name for name in null_fields(schema.name) if name in shape.declared and name not in found)
    zeros = _ZEROS[shape] = tuple(found)
    return zeros
