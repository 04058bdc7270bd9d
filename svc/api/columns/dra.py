"""Columns of dynamic resource allocation (resource.k8s.io): device classes, resource claims and their
templates, and resource slices."""

from __future__ import annotations

from svc.api.columns import descriptions
from svc.api.columns.common import age_column, field, items, name_column, text
from svc.wire.views import Column, Obj

DEVICE_CLASS = (name_column(), age_column())
RESOURCE_CLAIM_TEMPLATE = (name_column(), age_column())


def _claim_state(claim: Obj) -> str:
    """`deleted`, then `pending` or `allocated` (`reserved` when a consumer holds the claim), joined by ","."""
    deleted = field(claim, "metadata", "deletionTimestamp") is not None
    states = ["deleted"] if deleted else []
    if field(claim, "status", "allocation") is None:
        if not deleted:
            states.append("pending")
    else:
        states.append("allocated")
        if items(claim, "status", "reservedFor"):
            states.append("reserved")
    return ",".join(states)


RESOURCE_CLAIM = (
    name_column(),
    Column(
        "State",
        "string",
        _claim_state,
        description="A summary of the current state (allocated, pending, reserved, etc.).",
    ),
    age_column(),
)

RESOURCE_SLICE = (
    name_column(),
    Column(
        "Node",
        "string",
        lambda obj: text(obj, "spec", "nodeName"),
        description=descriptions.RESOURCE_SLICE_NODE_NAME,
    ),
    Column(
        "Driver",
        "string",
        lambda obj: text(obj, "spec", "driver"),
        description=descriptions.RESOURCE_SLICE_DRIVER,
    ),
    Column(
        "Pool",
        "string",
        lambda obj: text(obj, "spec", "pool", "name"),
        description=descriptions.RESOURCE_POOL_NAME,
    ),
    age_column(),
)
