"""Columns of pod templates and of controller revisions (the templates controllers keep as history)."""

from __future__ import annotations

from svc.api.columns import descriptions
from svc.api.columns.common import NONE, age_column, container_columns, field, items, name_column, number, text
from svc.api.columns.selectors import format_labels
from svc.wire.views import Column, Obj

POD_TEMPLATE = (
    name_column(),
    *container_columns("template", priority=0),
    Column(
        "Pod Labels",
        "string",
        lambda obj: format_labels(field(obj, "template", "metadata", "labels")),
        description="The labels for the pod template.",
    ),
)


def _controller(revision: Obj) -> str:
    """`kind.group/name` (lower-case kind and group) of the controlling owner, `<none>` without one."""
    for owner in items(revision, "metadata", "ownerReferences"):
        if field(owner, "controller") is True:
            group = text(owner, "apiVersion").rpartition("/")[0]
            kind = f"{text(owner, 'kind')}.{group}" if group else text(owner, "kind")
            return f"{kind.lower()}/{text(owner, 'name')}" if kind else text(owner, "name")
    return NONE


CONTROLLER_REVISION = (
    name_column(),
    Column("Controller", "string", _controller, description="Controller of the object"),
    Column(
        "Revision",
        "string",
        lambda obj: number(obj, "revision"),
        description=descriptions.CONTROLLER_REVISION_REVISION,
    ),
    age_column(),
)
